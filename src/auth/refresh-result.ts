import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { isAppStatus } from '../types/app-status.js'
import type { HandlerRefreshAuth, PortalOAuthParams } from '../types/auth.js'
import { requireExpires, requireRestRoot } from './validate-params.js'

function invalid(field: string, problem: string): SdkError {
  return new SdkError({ code: SdkErrorCode.InvalidResponse, message: `refresh result: ${field} ${problem}` })
}

/**
 * The new parameters after a refresh: `previous` with the fields of spec 3.1 replaced by what the refresh returned.
 * A missing `expires` is computed from `expires_in`; missing optional fields keep their previous values. Throws an
 * `SdkError` naming the field when the result is unusable (never echoing a token).
 */
export function applyRefreshResult(
  previous: PortalOAuthParams,
  raw: Partial<HandlerRefreshAuth> | null | undefined,
  nowMs: number,
): PortalOAuthParams {
  if (raw === null || typeof raw !== 'object') throw invalid('', 'must be an object')
  const { access_token, refresh_token } = raw
  if (typeof access_token !== 'string' || access_token === '')
    throw invalid('access_token', 'must be a non-empty string')
  if (typeof refresh_token !== 'string' || refresh_token === '')
    throw invalid('refresh_token', 'must be a non-empty string')
  const expiresIn = raw.expires_in === undefined ? previous.expiresIn : Number(raw.expires_in)
  if (!Number.isFinite(expiresIn) || expiresIn < 0)
    throw invalid('expires_in', `must be a number of seconds, got ${String(raw.expires_in)}`)
  const expires =
    raw.expires === undefined || raw.expires === null
      ? Math.floor(nowMs / 1000) + expiresIn
      : requireExpires('refresh result: expires', Number(raw.expires))
  const status = raw.status ?? previous.status
  if (!isAppStatus(status))
    throw invalid('status', `must be one of F, D, T, P, L, S, got ${JSON.stringify(status)}`)
  const clientEndpoint = raw.client_endpoint
    ? requireRestRoot('refresh result: client_endpoint', raw.client_endpoint)
    : previous.clientEndpoint
  const serverEndpoint = raw.server_endpoint
    ? requireRestRoot('refresh result: server_endpoint', raw.server_endpoint)
    : previous.serverEndpoint
  return {
    ...previous,
    accessToken: access_token,
    refreshToken: refresh_token,
    expires,
    expiresIn,
    clientEndpoint,
    serverEndpoint,
    scope: typeof raw.scope === 'string' ? raw.scope : previous.scope,
    status,
    // The refresh answer's `domain` is the OAuth server's host; the portal's domain follows `client_endpoint`.
    domain: clientEndpoint === previous.clientEndpoint ? previous.domain : new URL(clientEndpoint).host,
    memberId: typeof raw.member_id === 'string' && raw.member_id !== '' ? raw.member_id : previous.memberId,
  }
}
