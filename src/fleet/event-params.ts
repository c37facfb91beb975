import { SdkError } from '../errors/sdk-error.js'
import type { PortalOAuthParams } from '../types/auth.js'
import { validateAuthParams } from '../validation/auth-params.js'
import { invalidArgument } from '../validation/rules.js'

/** The portal's access-token lifetime, s: an event without `auth[expires_in]` gets it. */
const DEFAULT_EXPIRES_IN = 3600

/** `auth[field]` as a whole number (events carry numbers as digits), `undefined` when absent. */
function digits(auth: Readonly<Record<string, string>>, field: string): number | undefined {
  const value = auth[field]
  if (value === undefined || value === '') return undefined
  if (!/^\d{1,12}$/.test(value))
    throw invalidArgument(`handleEvent: auth[${field}]`, 'must be a whole number')
  return Number(value)
}

function present(auth: Readonly<Record<string, string>>, field: string): string {
  const value = auth[field]
  if (value === undefined || value === '') throw invalidArgument(`handleEvent: auth[${field}]`, 'is missing')
  return value
}

/**
 * The pair of an install or update event in constructor shape, validated like `new PortalOAuth(...)`'s. `expires`,
 * `expires_in` and `user_id` arrive as strings; a missing `expires` is now plus `expires_in`, a missing
 * `expires_in` the portal's 3600 s, a missing `user_id` 0.
 */
export function eventPairParams(auth: Readonly<Record<string, string>>, nowMs: number): PortalOAuthParams {
  const expiresIn = digits(auth, 'expires_in') ?? DEFAULT_EXPIRES_IN
  const candidate = {
    applicationToken: present(auth, 'application_token'),
    userId: digits(auth, 'user_id') ?? 0,
    memberId: present(auth, 'member_id'),
    accessToken: present(auth, 'access_token'),
    refreshToken: present(auth, 'refresh_token'),
    expires: digits(auth, 'expires') ?? Math.floor(nowMs / 1000) + expiresIn,
    expiresIn,
    scope: auth.scope ?? '',
    domain: present(auth, 'domain'),
    clientEndpoint: present(auth, 'client_endpoint'),
    serverEndpoint: present(auth, 'server_endpoint'),
    status: present(auth, 'status'),
  }
  try {
    return validateAuthParams(candidate)
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: validateAuthParams throws SdkErrors only
    if (!(error instanceof SdkError)) throw error
    throw invalidArgument("handleEvent: the event's pair", `is invalid: ${error.message}`)
  }
}
