import type { ApiVersion } from '../types/api-version.js'
import type { CallOptions } from '../types/call.js'
import {
  invalidArgument,
  isPlainObject,
  MAX_REQUEST_TIMEOUT_MS,
  requireHeaders,
  requireHeaderValue,
  requireIntegerIn,
} from '../validation/rules.js'

/** {@link CallOptions} after validation: `method` normalised, `params` an object. */
export interface ValidCallOptions extends Omit<CallOptions, 'params'> {
  /** Method name without leading slashes. */
  method: string
  /** Parameters, `{}` when none were given. */
  params: Record<string, unknown>
}

/** Method names: dotted words, as the portal names them; nothing that could change the URL. */
const METHOD_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

/** Validates the options of one call; throws an `SdkError` naming the field. */
export function validateCallOptions(input: CallOptions, apiVersion: ApiVersion): ValidCallOptions {
  if (!isPlainObject(input))
    throw invalidArgument(`${apiVersion} call: options`, 'must be an object like { method, params }')
  const { method, params, requestId, signal, timeout, headers, retryOnNetworkError } = input
  if (typeof method !== 'string')
    throw invalidArgument(`${apiVersion} call: method`, `must be a string, got ${typeof method}`)
  // Most names come as they are sent: no trim and no replace for them.
  const clean = METHOD_NAME.test(method)
  const name = clean ? method : method.trim().replace(/^\/+/, '')
  if (!clean && !METHOD_NAME.test(name)) {
    throw invalidArgument(
      `${apiVersion} call: method`,
      `must be a REST method name such as "crm.item.list", got ${JSON.stringify(method)}`,
    )
  }
  if (params !== undefined && !isPlainObject(params)) {
    throw invalidArgument(
      `${apiVersion} call: params`,
      `must be a plain object, got ${Array.isArray(params) ? 'an array' : typeof params}`,
    )
  }
  // It travels as the X-Request-Id header: a CR or LF there could never be sent, and would be retried as a failure.
  if (requestId !== undefined) requireHeaderValue(`${apiVersion} call: requestId`, requestId)
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument(`${apiVersion} call: signal`, 'must be an AbortSignal')
  }
  if (timeout !== undefined)
    requireIntegerIn(`${apiVersion} call: timeout`, timeout, 1, MAX_REQUEST_TIMEOUT_MS, { unit: 'ms' })
  if (headers !== undefined) requireHeaders(`${apiVersion} call: headers`, headers)
  if (retryOnNetworkError !== undefined && typeof retryOnNetworkError !== 'boolean') {
    throw invalidArgument(
      `${apiVersion} call: retryOnNetworkError`,
      `must be a boolean, got ${typeof retryOnNetworkError}`,
    )
  }
  return { ...input, method: name, params: params ?? {} }
}
