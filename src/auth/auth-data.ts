import type { AuthData, PortalOAuthParams } from '../types/auth.js'

/** `params` in the shape `getAuthData()` and the refresh callback give it (contract 2.6). */
export function authDataOf(params: PortalOAuthParams): AuthData {
  return {
    access_token: params.accessToken,
    refresh_token: params.refreshToken,
    expires: params.expires,
    expires_in: params.expiresIn,
    domain: params.domain,
    member_id: params.memberId,
  }
}
