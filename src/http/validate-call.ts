import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { ApiVersion } from '../types/api-version.js'
import type { CallOptions } from '../types/call.js'

/** {@link CallOptions} after validation: `method` normalised, `params` an object. */
export interface ValidCallOptions extends Omit<CallOptions, 'params'> {
  /** Method name without leading slashes. */
  method: string
  /** Parameters, `{}` when none were given. */
  params: Record<string, unknown>
}

/** Method names: dotted words, as the portal names them; nothing that could change the URL. */
const METHOD_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

function invalid(apiVersion: ApiVersion, field: string, problem: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.InvalidArgument,
    message: `${apiVersion} call: ${field} ${problem}`,
  })
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Validates the options of one call; throws an `SdkError` naming the field. */
export function validateCallOptions(input: CallOptions, apiVersion: ApiVersion): ValidCallOptions {
  if (!isPlainObject(input)) throw invalid(apiVersion, 'options', 'must be an object like { method, params }')
  const { method, params, requestId, signal, timeout, headers, retryOnNetworkError } = input
  if (typeof method !== 'string')
    throw invalid(apiVersion, 'method', `must be a string, got ${typeof method}`)
  const name = method.trim().replace(/^\/+/, '')
  if (!METHOD_NAME.test(name)) {
    throw invalid(
      apiVersion,
      'method',
      `must be a REST method name such as "crm.item.list", got ${JSON.stringify(method)}`,
    )
  }
  if (params !== undefined && !isPlainObject(params)) {
    throw invalid(
      apiVersion,
      'params',
      `must be a plain object, got ${Array.isArray(params) ? 'an array' : typeof params}`,
    )
  }
  if (requestId !== undefined && typeof requestId !== 'string') {
    throw invalid(apiVersion, 'requestId', `must be a string, got ${typeof requestId}`)
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalid(apiVersion, 'signal', 'must be an AbortSignal')
  }
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    throw invalid(apiVersion, 'timeout', `must be a positive number of ms, got ${String(timeout)}`)
  }
  if (headers !== undefined) {
    if (!isPlainObject(headers))
      throw invalid(apiVersion, 'headers', 'must be an object of header names to strings')
    for (const [key, value] of Object.entries(headers)) {
      if (typeof value !== 'string')
        throw invalid(apiVersion, `headers.${key}`, `must be a string, got ${typeof value}`)
    }
  }
  if (retryOnNetworkError !== undefined && typeof retryOnNetworkError !== 'boolean') {
    throw invalid(apiVersion, 'retryOnNetworkError', `must be a boolean, got ${typeof retryOnNetworkError}`)
  }
  return { ...input, method: name, params: params ?? {} }
}
