import { AjaxError } from '../errors/ajax-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'

/** What asking the portal about an event's user needs. */
export interface AdministratorQuestion {
  /** The portal's REST root, as the OAuth server confirmed it for the event's access token. */
  clientEndpoint: string
  /** The event's access token, confirmed by the OAuth server. */
  accessToken: string
  /** Sends the request. */
  fetch: FetchLike
  /** Longest wait for the answer, ms. */
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
 * flag tells the two apart. Rejects with a `NETWORK_ERROR` `AjaxError` when the portal cannot be reached.
 */
export async function isAdministrator(question: AdministratorQuestion): Promise<boolean> {
  let response: Response
  try {
    response = await question.fetch(`${question.clientEndpoint}profile`, {
      method: 'POST',
      headers: {
        ...question.headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ auth: question.accessToken }).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(question.timeoutMs),
    })
  } catch {
    // The adapter's failure is not read: it may quote the event's access token.
    throw new AjaxError({
      code: SdkErrorCode.NetworkError,
      message: "handleEvent: the portal could not be reached to check the event's user; nothing was changed",
      request: { method: 'profile' },
    })
  }
  // Stryker disable next-line ArrowFunction,StringLiteral: a body that cannot be read is no JSON either way
  const text = await response.text().catch(() => '')
  let payload: unknown
  try {
    payload = JSON.parse(text)
    // Stryker disable next-line BlockStatement: without the return, payload stays undefined, which is no record
  } catch {
    return false
  }
  return response.ok && isRecord(payload) && isRecord(payload.result) && payload.result.ADMIN === true
}
