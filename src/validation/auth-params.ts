import type { TypeEnumAppStatus } from '../types/app-status.js'
import type { PortalOAuthParams, PortalOAuthSecret } from '../types/auth.js'
import { invalidArgument, isRemotePlainHttp, requireNoCredentials } from './rules.js'

/** An `expires` above this (year 5138 in seconds) can only be milliseconds. */
const MAX_EXPIRES_SECONDS = 100_000_000_000
/** One upper-case letter: the known ones are listed in `EnumAppStatus`. */
const STATUS_LETTER = /^[A-Z]$/

function describe(value: unknown): string {
  if (value === undefined) return 'it is missing'
  if (value === '') return 'it is empty'
  return `got ${typeof value}`
}

function requireString(record: Record<string, unknown>, group: string, key: string): string {
  const value = record[key]
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidArgument(`PortalOAuth: ${group}.${key}`, `must be a non-empty string; ${describe(value)}`)
  return value
}

/**
 * Checks an absolute http(s) URL ending in `/rest/`, without `user:password@`; says what is wrong with it. The value
 * is echoed only when it cannot hold credentials.
 */
export function requireRestRoot(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw invalidArgument(
      `PortalOAuth: ${field}`,
      `must be an absolute URL ending in /rest/; ${describe(value)}`,
    )
  let url: URL
  try {
    url = new URL(value)
  } catch {
    const shown = value.includes('@') ? 'it is not one' : `got ${JSON.stringify(value)}`
    throw invalidArgument(`PortalOAuth: ${field}`, `must be an absolute URL ending in /rest/, ${shown}`)
  }
  requireNoCredentials(`PortalOAuth: ${field}`, url)
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalidArgument(`PortalOAuth: ${field}`, `must use http or https, got ${url.protocol}`)
  if (url.search || url.hash)
    throw invalidArgument(`PortalOAuth: ${field}`, 'must not have a query or a fragment')
  if (!url.pathname.endsWith('/rest/'))
    throw invalidArgument(`PortalOAuth: ${field}`, `must end in /rest/, got ${JSON.stringify(value)}`)
  return url.href
}

/** Checks an `expires` in Unix seconds; refuses values that look like milliseconds. */
export function requireExpires(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw invalidArgument(`PortalOAuth: ${field}`, `must be a Unix time in seconds; ${describe(value)}`)
  if (value > MAX_EXPIRES_SECONDS) {
    throw invalidArgument(
      `PortalOAuth: ${field}`,
      `looks like milliseconds (${value}); pass a Unix time in seconds (${Math.floor(value / 1000)})`,
    )
  }
  if (value < 0) throw invalidArgument(`PortalOAuth: ${field}`, `must not be negative, got ${value}`)
  return Math.floor(value)
}

/** Validates the constructor's token data; throws an `SdkError` naming the field. Returns a normalised copy. */
export function validateAuthParams(input: unknown): PortalOAuthParams {
  if (input === null || typeof input !== 'object')
    throw invalidArgument(`PortalOAuth: authOptions`, `must be an object; ${describe(input)}`)
  const record = input as Record<string, unknown>
  const group = 'authOptions'
  const accessToken = requireString(record, group, 'accessToken')
  const refreshToken = requireString(record, group, 'refreshToken')
  const applicationToken = requireString(record, group, 'applicationToken')
  const memberId = requireString(record, group, 'memberId')
  const userId = record.userId
  if (typeof userId !== 'number' || !Number.isInteger(userId) || userId < 0) {
    throw invalidArgument(
      `PortalOAuth: ${group}.userId`,
      `must be a non-negative integer; ${describe(userId)}`,
    )
  }
  const expires = requireExpires(`${group}.expires`, record.expires)
  const expiresIn = record.expiresIn
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0) {
    throw invalidArgument(
      `PortalOAuth: ${group}.expiresIn`,
      `must be a number of seconds; ${describe(expiresIn)}`,
    )
  }
  const scope = record.scope ?? ''
  if (typeof scope !== 'string')
    throw invalidArgument(
      `PortalOAuth: ${group}.scope`,
      `must be a comma-separated string; got ${typeof scope}`,
    )
  const domain = requireString(record, group, 'domain')
  const clientEndpoint = requireRestRoot(`${group}.clientEndpoint`, record.clientEndpoint)
  const serverEndpoint = requireRestRoot(`${group}.serverEndpoint`, record.serverEndpoint)
  const status = record.status
  // An unknown letter is accepted: a refresh keeps what the portal sends, and a pair persisted from it must restore.
  if (typeof status !== 'string' || !STATUS_LETTER.test(status)) {
    throw invalidArgument(
      `PortalOAuth: ${group}.status`,
      `must be one status letter such as F, D, T, P, L, S (EnumAppStatus), got ${JSON.stringify(status)}`,
    )
  }
  return {
    applicationToken,
    userId,
    memberId,
    accessToken,
    refreshToken,
    expires,
    expiresIn,
    scope,
    domain,
    clientEndpoint,
    serverEndpoint,
    status: status as TypeEnumAppStatus,
  }
}

/** Validates the application credentials; throws an `SdkError` naming the field. */
export function validateSecret(input: unknown): PortalOAuthSecret {
  if (input === null || typeof input !== 'object')
    throw invalidArgument(`PortalOAuth: oAuthSecret`, `must be an object; ${describe(input)}`)
  const record = input as Record<string, unknown>
  return {
    clientId: requireString(record, 'oAuthSecret', 'clientId'),
    clientSecret: requireString(record, 'oAuthSecret', 'clientSecret'),
  }
}

/**
 * The endpoints of `params` that go over plain http to another machine, as `field (host)`, for a warning: the
 * tokens, and on the OAuth server the client secret, would travel unencrypted.
 */
export function plainHttpEndpoints(
  params: Pick<PortalOAuthParams, 'clientEndpoint' | 'serverEndpoint'>,
): string[] {
  const found: string[] = []
  for (const key of ['clientEndpoint', 'serverEndpoint'] as const) {
    const url = new URL(params[key])
    if (isRemotePlainHttp(url)) found.push(`authOptions.${key} (${url.hostname})`)
  }
  return found
}
