import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'
import type { PortalOAuthParams } from '../types/auth.js'
import { isAdministrator } from './prove-admin.js'
import { askWithToken } from './token-question.js'

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

/** What the OAuth server and the portal confirmed. */
export interface ProvedEvent {
  /** The access token's expiry as the OAuth server knows it (Unix seconds), when it told. */
  expires: number | undefined
  /** Whether the portal says the token's user administers it (see {@link isAdministrator}). */
  administrator: boolean
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

/**
 * The portal's REST root as one field of the OAuth server's installation names it: `client_endpoint` itself, the
 * `/rest/` of `uri`'s origin, or of `domain` over https (over http only when the event's endpoint is plain http,
 * which the fleet refused before unless it is loopback or taken by option). `undefined` when the field names none.
 */
function restRootNamedBy(
  field: 'client_endpoint' | 'uri' | 'domain',
  value: string,
  claimed: URL,
): string | undefined {
  if (field === 'client_endpoint') return URL.parse(value)?.href
  if (field === 'uri') {
    const origin = URL.parse(value)?.origin
    return origin === undefined || origin === 'null' ? undefined : `${origin}/rest/`
  }
  const scheme = claimed.protocol === 'http:' ? 'http' : 'https'
  return value === '' ? undefined : URL.parse(`${scheme}://${value}/rest/`)?.href
}

/**
 * Whether the installation the OAuth server describes is at the event's `client_endpoint`: scheme, host, port and
 * REST root compared for every one of `client_endpoint`, `uri` and `domain` the answer gives (at least one).
 */
function samePortal(install: Record<string, unknown>, clientEndpoint: string): boolean {
  const claimed = new URL(clientEndpoint)
  const fields = (['client_endpoint', 'uri', 'domain'] as const).filter(
    (field) => install[field] !== undefined && install[field] !== null,
  )
  return (
    fields.length > 0 &&
    fields.every((field) => {
      const value = install[field]
      return typeof value === 'string' && restRootNamedBy(field, value, claimed) === claimed.href
    })
  )
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
 * URL has no such token. Then asks the portal whether the token's user administers it (`administrator`): any user of
 * the portal holds a token the OAuth server confirms. Rejects with `JSSDK_EVENT_NOT_PROVED` when the OAuth server
 * does not confirm the token, and with a `NETWORK_ERROR` `AjaxError` when a server cannot be reached (nothing was
 * proved either way).
 */
export async function proveEvent(proof: EventProof): Promise<ProvedEvent> {
  const { params } = proof
  const answer = await askWithToken({
    url: `${params.serverEndpoint}app.info/`,
    method: 'app.info',
    who: 'the OAuth server',
    what: 'the event',
    accessToken: params.accessToken,
    fetch: proof.fetch,
    timeoutMs: proof.timeoutMs,
    headers: proof.headers,
  })
  const { payload } = answer
  if (!answer.ok || !isRecord(payload) || !isRecord(payload.result))
    throw notProved(params.memberId, `HTTP ${answer.status}, no installation`)
  const why = mismatch(payload.result, proof)
  if (why) throw notProved(params.memberId, why)
  const expires = payload.result.expires
  // The OAuth server confirmed the token's portal: only now does the token go to that portal, to ask about its user.
  const administrator = await isAdministrator({
    clientEndpoint: params.clientEndpoint,
    accessToken: params.accessToken,
    fetch: proof.fetch,
    timeoutMs: proof.timeoutMs,
    headers: proof.headers,
  })
  return {
    expires: typeof expires === 'number' && Number.isInteger(expires) && expires > 0 ? expires : undefined,
    administrator,
  }
}
