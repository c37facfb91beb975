import { AjaxError } from '../errors/ajax-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { toError } from '../errors/to-error.js'
import type { SecretRegistry } from '../logger/secret-registry.js'
import type { AjaxQuery } from '../results/ajax-result.js'
import { isKyTimeout } from './ky-module.js'
import { refusedAnswerError } from './refused-answer.js'
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

/**
 * The call's timeout passed while it waited for a slot of the rate limit (or the method's operating delay): the
 * attempt was not sent.
 */
export function slotTimeoutError(call: CallFacts, timeoutMs: number): AjaxError {
  const sent =
    call.attempts === 0 ? 'nothing was sent' : `after ${call.attempts} attempt(s), the next was not sent`
  return new AjaxError({
    code: SdkErrorCode.RequestTimeout,
    message: `${where(call.query)}: the call's timeout of ${timeoutMs} ms passed while it waited for the rate limit; ${sent}`,
    request: callFields(call.query),
    attempts: call.attempts,
  })
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
 * refused answer (a redirect, an answer past `httpOptions.maxAnswerBytes`) as `JSSDK_REDIRECT_REFUSED` or
 * `JSSDK_ANSWER_TOO_LARGE`, a timeout as `REQUEST_TIMEOUT`, anything else as `NETWORK_ERROR` saying whether the
 * request left at all.
 */
export function transportError(call: CallFacts, error: unknown, context: TransportFailureContext): SdkError {
  // An SdkError may come from an adapter too: as every thrown Error, the same object (only its snapshot is published).
  if (isSdkError(error)) return toError(error, context.secrets) as SdkError
  if (context.signal?.aborted) return abortError(call, context.signal.reason ?? error)
  const refused = refusedAnswerError(error, {
    where: where(call.query),
    who: 'the portal',
    request: callFields(call.query),
    attempts: call.attempts,
  })
  if (refused) return refused
  // The message and the cause are made of the failure's snapshot (read once, redacted), never of the failure
  // itself, whose message may hold a webhook URL and whose getters may say something else at each read.
  const read = context.secrets.snapshot(error)
  const code = failureCode(read.data())
  const cause = Object.assign(new Error(read.summary().message), { code })
  const timedOut = isKyTimeout(error)
  // Refused by an argument check on this host (an adapter's own, undici's): nothing was sent, say so.
  const failed = classifyFailureSafely(error) === 'refused' ? 'refused before sending' : 'connection failed'
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

/** `instanceof SdkError`, which a hostile Proxy may make throw. */
function isSdkError(error: unknown): error is SdkError {
  try {
    return error instanceof SdkError
  } catch {
    return false
  }
}

/** {@link classifyFailure}, or `maybe-sent` when reading the failure throws (a hostile getter or Proxy). */
function classifyFailureSafely(error: unknown): ReturnType<typeof classifyFailure> {
  try {
    return classifyFailure(error)
  } catch {
    return 'maybe-sent'
  }
}
