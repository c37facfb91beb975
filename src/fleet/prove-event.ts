import { AjaxError } from '../errors/ajax-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'
import { NO_REDIRECT } from '../http/no-redirect.js'
import { type OAuthAnswer, readOAuthAnswer, refusedAnswerError } from '../http/refused-answer.js'
import type { PortalOAuthParams } from '../types/auth.js'

/** What proving an install or update event needs. */
export interface EventProof {
  /** The event's pair; its `serverEndpoint` was checked against the trusted OAuth servers before. */
  params: PortalOAuthParams
  /** The application's `client_id`: the token must have been issued to it. */
  clientId: string
  /** Sends the request. */
  fetch: FetchLike
  /** Longest wait for the answer, ms. */
  timeoutMs: number
  /** Extra headers of every request. */
  headers: Record<string, string>
}

/** What the OAuth server confirmed. */
export interface ProvedEvent {
  /** The access token's expiry as the OAuth server knows it (Unix seconds), when it told. */
  expires: number | undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function notProved(memberId: string, why: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.EventNotProved,
    message: `handleEvent: portal ${memberId}: the OAuth server did not confirm the event's access token (${why}); nothing was changed`,
  })
}

/** Whether the installation the OAuth server describes is the portal the event names. */
function samePortal(install: Record<string, unknown>, clientEndpoint: string): boolean {
  const url = new URL(clientEndpoint)
  if (typeof install.client_endpoint === 'string') return install.client_endpoint === clientEndpoint
  if (typeof install.domain === 'string') return install.domain === url.host
  if (typeof install.uri === 'string') {
    try {
      return new URL(install.uri).origin === url.origin
    } catch {
      return false
    }
  }
  return false
}

/** Why an `app.info` answer does not confirm the event, or `undefined` when it does. */
function mismatch(result: Record<string, unknown>, proof: EventProof): string | undefined {
  const { params } = proof
  if (result.client_id !== proof.clientId) return 'issued to another application'
  const install = result.install
  if (!isRecord(install)) return 'no installation in the answer'
  if (install.member_id !== params.memberId) return 'issued for another portal'
  if (!samePortal(install, params.clientEndpoint)) return 'the installation is on another client_endpoint'
  return undefined
}

/**
 * Asks the event's (trusted) OAuth server whose access token the event carries, as the vendor's SDKs do: `app.info`
 * at `{server_endpoint}app.info/`, the token in the POST body. The event is proved when the answer names this
 * application's `client_id`, the event's `member_id` and its `client_endpoint`; an attacker who can reach the event
 * URL has no such token. Rejects with `JSSDK_EVENT_NOT_PROVED` when it is not, and with a `NETWORK_ERROR`
 * `AjaxError` when the server cannot be reached (nothing was proved either way).
 */
export async function proveEvent(proof: EventProof): Promise<ProvedEvent> {
  const { params } = proof
  const url = `${params.serverEndpoint}app.info/`
  // One deadline for the request and its answer's body; no redirect followed, at most 1 MiB read (no-redirect.ts).
  const signal = AbortSignal.timeout(proof.timeoutMs)
  let answer: OAuthAnswer
  try {
    const response = await proof.fetch(url, {
      method: 'POST',
      headers: {
        ...proof.headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ auth: params.accessToken }).toString(),
      signal,
      redirect: NO_REDIRECT,
    })
    answer = await readOAuthAnswer(response, url, signal)
  } catch (error) {
    const refused = refusedAnswerError(error, {
      where: 'handleEvent',
      who: 'the OAuth server',
      request: { method: 'app.info' },
    })
    if (refused) throw refused
    // The adapter's failure is not read: it may quote the event's access token. A deadline passed: REQUEST_TIMEOUT.
    throw new AjaxError({
      code: signal.aborted ? SdkErrorCode.RequestTimeout : SdkErrorCode.NetworkError,
      message: signal.aborted
        ? `handleEvent: the OAuth server did not answer within ${proof.timeoutMs} ms to check the event; nothing was changed`
        : 'handleEvent: the OAuth server could not be reached to check the event; nothing was changed',
      request: { method: 'app.info' },
    })
  }
  let payload: unknown
  try {
    payload = JSON.parse(answer.text)
  } catch {
    // Not JSON: nothing confirmed (the check below says so).
  }
  if (!answer.ok || !isRecord(payload) || !isRecord(payload.result))
    throw notProved(params.memberId, `HTTP ${answer.status}, no installation`)
  const why = mismatch(payload.result, proof)
  if (why) throw notProved(params.memberId, why)
  const expires = payload.result.expires
  return {
    expires: typeof expires === 'number' && Number.isInteger(expires) && expires > 0 ? expires : undefined,
  }
}
