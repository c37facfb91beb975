import type { FetchLike } from '../http/http-options.js'
import { askWithToken } from './token-question.js'

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
  const { ok, payload } = await askWithToken({
    url: `${question.clientEndpoint}profile`,
    method: 'profile',
    who: 'the portal',
    what: "the event's user",
    accessToken: question.accessToken,
    fetch: question.fetch,
    timeoutMs: question.timeoutMs,
    headers: question.headers,
  })
  return ok && isRecord(payload) && isRecord(payload.result) && payload.result.ADMIN === true
}
