import { AjaxError } from '../errors/ajax-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { toError } from '../errors/to-error.js'
import type { SecretRegistry } from '../logger/secret-registry.js'
import type { AjaxQuery } from '../results/ajax-result.js'
import { isKyTimeout } from './ky-module.js'
import { classifyFailure, failureCode } from './retry-policy.js'

/** What an error says about the call it ends: the call as asked, and how many attempts were sent. */
export interface CallFacts {
  readonly query: AjaxQuery
  readonly attempts: number
}

/** The call named in errors and log lines: version, method and request id, never its parameters. */
export function callFields(query: AjaxQuery): AjaxError['request'] {
  return query.requestId === undefined
    ? { apiVersion: query.apiVersion, method: query.method }
    : { apiVersion: query.apiVersion, method: query.method, requestId: query.requestId }
}

function where(query: AjaxQuery): string {
  return `${query.apiVersion} ${query.method}`
}

/** The call was cancelled by the caller's signal; `cause` is the reason given to `abort()`. */
export function abortError(call: CallFacts, cause: unknown): AjaxError {
  return new AjaxError({
    code: SdkErrorCode.RequestAborted,
    message: `${where(call.query)}: cancelled by the caller's signal`,
    request: callFields(call.query),
    attempts: call.attempts,
    cause,
  })
}

/** The portal answered `status` with a body that is not JSON. */
export function invalidBodyError(call: CallFacts, status: number, cause: unknown): AjaxError {
  return new AjaxError({
    code: SdkErrorCode.InvalidResponse,
    message: `${where(call.query)}: the portal answered HTTP ${status} with a body that is not JSON`,
    status,
    request: callFields(call.query),
    attempts: call.attempts,
    cause,
  })
}

/** How a failure on the way is told: the caller's signal, the timeout in force, the secrets to keep out. */
export interface TransportFailureContext {
  signal: AbortSignal | undefined
  timeoutMs: number
  secrets: SecretRegistry
}

/**
 * A failure on the way as the caller gets it: an `SdkError` as it is, a cancellation as {@link abortError}, a
 * timeout as `REQUEST_TIMEOUT`, anything else as `NETWORK_ERROR` saying whether the request left at all.
 */
export function transportError(call: CallFacts, error: unknown, context: TransportFailureContext): SdkError {
  if (error instanceof SdkError) return error
  if (context.signal?.aborted) return abortError(call, context.signal.reason ?? error)
  const code = failureCode(error)
  // The cause keeps the low-level code but not the original object, whose message may hold a webhook URL.
  const cause = Object.assign(new Error(toError(error, context.secrets).message), { code })
  const timedOut = isKyTimeout(error)
  // Refused by an argument check on this host (an adapter's own, undici's): nothing was sent, say so.
  const failed = classifyFailure(error) === 'refused' ? 'refused before sending' : 'connection failed'
  return new AjaxError({
    code: timedOut ? SdkErrorCode.RequestTimeout : SdkErrorCode.NetworkError,
    message: timedOut
      ? `${where(call.query)}: no answer within ${context.timeoutMs} ms`
      : `${where(call.query)}: ${failed}${code ? ` (${code})` : ''}`,
    request: callFields(call.query),
    attempts: call.attempts,
    cause,
  })
}
