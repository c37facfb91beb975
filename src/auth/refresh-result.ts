import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { allowedChange } from '../trust/installation-rule.js'
import { isAppStatus, type TypeEnumAppStatus } from '../types/app-status.js'
import type { HandlerRefreshAuth, PortalOAuthParams } from '../types/auth.js'
import { requireExpires, requireRestRoot } from '../validation/auth-params.js'

/** The pair after a refresh, and the fields of the answer that were odd and repaired (names only, never values). */
export interface AppliedRefresh {
  /** `previous` with the fields of the refresh answer applied. */
  params: PortalOAuthParams
  /** Answer fields that were odd, each with what was done: `expires` computed from `expires_in`, an endpoint kept. */
  repaired: string[]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== ''
}

/** A finite number of seconds (JSON numbers, or digits as form-encoded answers carry them), else undefined. */
function seconds(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : undefined
}

function validExpires(value: unknown): number | undefined {
  const number = seconds(value)
  if (number === undefined) return undefined
  try {
    return requireExpires('expires', number)
  } catch {
    return undefined
  }
}

function validEndpoint(value: unknown): string | undefined {
  try {
    return requireRestRoot('endpoint', value)
  } catch {
    return undefined
  }
}

/**
 * The new parameters after a refresh. A rotated pair is never thrown away: as long as the answer carries
 * `access_token` and `refresh_token`, the pair is applied and whatever else is odd is repaired the way the portal
 * behaves (a missing or odd `expires` comes from `expires_in`, an odd endpoint keeps the previous one, an unknown
 * status letter is kept as given, other odd fields keep their previous values) and listed in `repaired`. What the
 * answer may change is the installation rule's (`src/trust/installation-rule.ts`): a `member_id` or `client_endpoint`
 * of another portal keeps the previous ones, and a `server_endpoint` that `trusted` refuses keeps the previous one,
 * so that an answer never moves the pair onto another portal, nor the next refresh (and the client secret) to a
 * server outside the trusted list. Throws an `INVALID_RESPONSE` `SdkError` only when there
 * is no pair to apply (never echoing a token).
 */
export function applyRefreshResult(
  previous: PortalOAuthParams,
  raw: Partial<HandlerRefreshAuth> | null | undefined,
  nowMs: number,
  trusted: (serverEndpoint: string) => boolean = () => true,
): AppliedRefresh {
  if (!isRecord(raw) || !nonEmptyString(raw.access_token) || !nonEmptyString(raw.refresh_token)) {
    const missing = !isRecord(raw)
      ? 'is not an object'
      : !nonEmptyString(raw.access_token)
        ? 'has no access_token'
        : 'has no refresh_token'
    throw new SdkError({
      code: SdkErrorCode.InvalidResponse,
      message: `token refresh: the answer ${missing}`,
    })
  }
  const repaired: string[] = []
  const nowSeconds = Math.floor(nowMs / 1000)
  const givenExpires = validExpires(raw.expires)
  const givenExpiresIn = seconds(raw.expires_in)
  if (raw.expires_in !== undefined && givenExpiresIn === undefined) repaired.push('expires_in')
  if (raw.expires !== undefined && raw.expires !== null && givenExpires === undefined)
    repaired.push('expires')
  const expiresIn = Math.floor(
    givenExpiresIn ??
      (givenExpires === undefined ? previous.expiresIn : Math.max(0, givenExpires - nowSeconds)),
  )
  const expires = givenExpires ?? nowSeconds + expiresIn

  const endpoint = (field: 'client_endpoint' | 'server_endpoint', fallback: string): string => {
    if (raw[field] === undefined || raw[field] === null || raw[field] === '') return fallback
    const valid = validEndpoint(raw[field])
    if (valid === undefined) repaired.push(`${field} (previous kept)`)
    return valid ?? fallback
  }
  const kept = <T>(field: keyof HandlerRefreshAuth, fallback: T): T | string => {
    const value = raw[field]
    if (value === undefined || value === null) return fallback
    if (nonEmptyString(value)) return value
    repaired.push(`${field} (previous kept)`)
    return fallback
  }
  // An unknown status letter is kept as given: the portal may add letters before this client knows them.
  const status = kept('status', previous.status) as TypeEnumAppStatus
  if (raw.status === status && !isAppStatus(status)) repaired.push('status (unknown letter kept)')
  const proposed: PortalOAuthParams = {
    ...previous,
    accessToken: raw.access_token,
    refreshToken: raw.refresh_token,
    expires,
    expiresIn,
    clientEndpoint: endpoint('client_endpoint', previous.clientEndpoint),
    serverEndpoint: endpoint('server_endpoint', previous.serverEndpoint),
    scope: kept('scope', previous.scope),
    status,
    memberId: kept('member_id', previous.memberId),
  }
  // The answer renews this portal's pair: it never moves it onto another portal, address or untrusted server.
  const { params, refused } = allowedChange('refresh', previous, proposed, trusted)
  if (refused.includes('portal'))
    repaired.push('member_id and client_endpoint (another portal, previous kept)')
  if (refused.includes('serverEndpoint')) repaired.push('server_endpoint (untrusted server, previous kept)')
  return { params, repaired }
}
