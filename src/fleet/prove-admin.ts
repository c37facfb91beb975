import { AjaxError } from '../errors/ajax-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'
import { NO_REDIRECT } from '../http/no-redirect.js'
import { type OAuthAnswer, readOAuthAnswer, refusedAnswerError } from '../http/refused-answer.js'

/** What asking the portal about an event's user needs. */
export interface AdministratorQuestion {
  /** The portal's REST root, as the OAuth server confirmed it for the event's access token. */
  clientEndpoint: string
  /** The event's access token, confirmed by the OAuth server. */
  accessToken: string
  /** Sends the request. */
  fetch: FetchLike
  /** Longest wait for the whole answer, its body included, ms. */
  timeoutMs: number
  /** Extra headers of every request. */
  headers: Record<string, string>
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Whether the user of an event's access token administers the portal: `profile` (which needs no scope) at the
 * portal's REST root, the token in the POST body, as `initIsAdmin()` reads it; `ADMIN: true` means yes, any other
 * answer (an error, a user the portal no longer knows, no flag) no. Installing or updating an application is an
 * administrator's act, and any user who opens the application's page holds a token the OAuth server confirms: the
 * flag tells the two apart. Rejects with a `NETWORK_ERROR` `AjaxError` when the portal cannot be reached, a
 * `REQUEST_TIMEOUT` one when its whole answer did not come within `timeoutMs`, and `JSSDK_REDIRECT_REFUSED` or
 * `JSSDK_ANSWER_TOO_LARGE` (1 MiB) when it answered with a redirect or past the limit: the token is never sent on.
 */
export async function isAdministrator(question: AdministratorQuestion): Promise<boolean> {
  const url = `${question.clientEndpoint}profile`
  // One deadline for the request and its answer's body; no redirect followed, at most 1 MiB read (no-redirect.ts).
  const signal = AbortSignal.timeout(question.timeoutMs)
  let answer: OAuthAnswer
  try {
    const response = await question.fetch(url, {
      method: 'POST',
      headers: {
        ...question.headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ auth: question.accessToken }).toString(),
      redirect: NO_REDIRECT,
      signal,
    })
    answer = await readOAuthAnswer(response, url, signal)
  } catch (error) {
    const refused = refusedAnswerError(error, {
      where: 'handleEvent',
      who: 'the portal',
      request: { method: 'profile' },
    })
    if (refused) throw refused
    // The adapter's failure is not read: it may quote the event's access token. A deadline passed: REQUEST_TIMEOUT.
    throw new AjaxError({
      code: signal.aborted ? SdkErrorCode.RequestTimeout : SdkErrorCode.NetworkError,
      message: signal.aborted
        ? `handleEvent: the portal did not answer within ${question.timeoutMs} ms to check the event's user; nothing was changed`
        : "handleEvent: the portal could not be reached to check the event's user; nothing was changed",
      request: { method: 'profile' },
    })
  }
  let payload: unknown
  try {
    payload = JSON.parse(answer.text)
  } catch {
    return false
  }
  return answer.ok && isRecord(payload) && isRecord(payload.result) && payload.result.ADMIN === true
}
