import { AjaxError, type AjaxErrorRequestInfo } from '../errors/ajax-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import { AnswerTooLarge, describeBytes, OAUTH_ANSWER_LIMIT_BYTES, readAnswerText } from './answer-limit.js'
import { RedirectRefusal, refuseRedirect } from './no-redirect.js'

/** Who answered, as messages name it. */
export type Answerer = 'the OAuth server' | 'the portal'

/** What the error of a refused answer says about the request it ends. */
export interface RefusedAnswerFacts {
  /** The message's prefix: `token refresh`, `handleEvent`, `v2 crm.deal.list`, ... */
  where: string
  /** Who answered: the message names them, and the portal's answer-size limit names its option. */
  who: Answerer
  /** The request as the error's `request` names it. */
  request: AjaxErrorRequestInfo
  /** How many times the request was sent. */
  attempts?: number
}

/** `instanceof`, which a hostile Proxy thrown by an adapter may make throw. */
function isInstance<T>(value: unknown, type: abstract new (...args: never[]) => T): value is T {
  try {
    return value instanceof type
  } catch {
    return false
  }
}

/** Whether `error` is an answer refused on the way: a {@link RedirectRefusal} or an {@link AnswerTooLarge}. */
export function isRefusedAnswer(error: unknown): error is RedirectRefusal | AnswerTooLarge {
  return isInstance(error, RedirectRefusal) || isInstance(error, AnswerTooLarge)
}

/**
 * The caller's error for an answer refused on the way: `JSSDK_REDIRECT_REFUSED` naming the redirect's origin (never
 * its path or query), or `JSSDK_ANSWER_TOO_LARGE` naming the limit; `undefined` for any other failure. Neither
 * message quotes the answer.
 */
export function refusedAnswerError(error: unknown, facts: RefusedAnswerFacts): AjaxError | undefined {
  const { where, who, request } = facts
  const attempts = facts.attempts === undefined ? {} : { attempts: facts.attempts }
  if (isInstance(error, RedirectRefusal)) {
    const moved =
      who === 'the portal'
        ? '; a portal that moved to a new address is taken there by its next install or update event, or by setAuthOptions() with its new client_endpoint'
        : ''
    return new AjaxError({
      code: SdkErrorCode.RedirectRefused,
      message: error.followed
        ? `${where}: the adapter followed a redirect to ${error.location}: the request, with its secret or token, may have reached it (give the adapter's fetch redirect: 'manual'); its answer is refused`
        : `${where}: ${who} answered HTTP ${error.status} with a redirect to ${error.location}; a request carrying a secret or a token follows no redirect, so nothing was sent there${moved}`,
      status: error.status,
      request,
      ...attempts,
    })
  }
  if (isInstance(error, AnswerTooLarge)) {
    const option = who === 'the portal' ? ' (httpOptions.maxAnswerBytes)' : ''
    return new AjaxError({
      code: SdkErrorCode.AnswerTooLarge,
      message: `${where}: ${who}'s answer passed the limit of ${describeBytes(error.limit)}${option}; reading stopped and the connection was closed`,
      request,
      ...attempts,
    })
  }
  return undefined
}

/** An answer of the OAuth server (or the portal's answer to an event's admin proof), read whole within its bounds. */
export interface OAuthAnswer {
  /** HTTP status. */
  status: number
  /** Whether the status is 2xx. */
  ok: boolean
  /** The body. */
  text: string
}

/**
 * The answer of the OAuth server (or of the portal to an event's `profile`, see prove-admin.ts) to a request that
 * carried a secret or a token to `requestUrl`: a redirect is
 * refused ({@link RedirectRefusal}), and the body is read up to {@link OAUTH_ANSWER_LIMIT_BYTES}
 * ({@link AnswerTooLarge}) and until `signal` aborts (the request's deadline covers the body). The request itself
 * went out with `redirect: NO_REDIRECT` (no-redirect.ts).
 */
export async function readOAuthAnswer(
  response: Response,
  requestUrl: string,
  signal: AbortSignal | undefined,
): Promise<OAuthAnswer> {
  refuseRedirect(response, requestUrl)
  const text = await readAnswerText(response, OAUTH_ANSWER_LIMIT_BYTES, signal)
  return { status: response.status, ok: response.ok, text }
}
