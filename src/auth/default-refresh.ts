import { AjaxError } from '../errors/ajax-error.js'
import { RefreshTokenError } from '../errors/refresh-token-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import type { SecretRedactor } from '../errors/to-error.js'
import type { FetchLike } from '../http/http-options.js'
import { loadKy } from '../http/ky-module.js'
import { failureCode } from '../http/retry-policy.js'
import type { HandlerRefreshAuth } from '../types/auth.js'

/** What the default refresh request needs. */
export interface DefaultRefreshRequest {
  /** `{auth_url}oauth/token/`. */
  tokenUrl: string
  /** The refresh token to exchange. */
  refreshToken: string
  /** OAuth `client_id`. */
  clientId: string
  /** OAuth `client_secret`. */
  clientSecret: string
  /** Adapter that sends the request. */
  fetch: FetchLike
  /** Aborted when the token machine abandons the attempt (its refresh timeout passed). */
  signal: AbortSignal
  /** The instance's secrets: a failure of the adapter is read through its snapshot, once and redacted. */
  secrets: SecretRedactor
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The default refresh (contract 3.2): POST `application/x-www-form-urlencoded` to the token URL with `grant_type`,
 * `refresh_token`, `client_id`, `client_secret` in the body and nothing in the query. An `error` member is a failure
 * even on HTTP 200 (`wrong_client`). One attempt: the token machine decides whether to try again.
 */
export async function requestTokenRefresh(
  request: DefaultRefreshRequest,
): Promise<Partial<HandlerRefreshAuth>> {
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: request.refreshToken,
    client_id: request.clientId,
    client_secret: request.clientSecret,
  })
  let response: Response
  try {
    const { default: ky } = await loadKy()
    response = await ky.post(request.tokenUrl, {
      body,
      fetch: request.fetch,
      // The token machine bounds the attempt and retries it with a backoff shared by every waiting caller.
      timeout: false,
      signal: request.signal,
      throwHttpErrors: false,
      headers: { accept: 'application/json' },
      retry: 0,
    })
  } catch (error) {
    // Never the failure itself: an adapter's error may name the refresh token in a getter read twice.
    const code = failureCode(request.secrets.snapshot(error).data())
    throw new AjaxError({
      code: SdkErrorCode.NetworkError,
      message: `token refresh: connection to the OAuth server failed${code ? ` (${code})` : ''}`,
      request: { method: 'oauth/token' },
      cause: Object.assign(new Error(code ?? 'connection failed'), { code }),
    })
  }
  const text = await response.text()
  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch {
    // Not JSON: no OAuth error to read, and no token (the check below says so).
  }
  if (isRecord(payload) && typeof payload.error === 'string' && payload.error !== '') {
    throw new RefreshTokenError({
      code: payload.error,
      description: typeof payload.error_description === 'string' ? payload.error_description : '',
      status: response.status,
    })
  }
  if (!response.ok || !isRecord(payload)) {
    throw new AjaxError({
      code: SdkErrorCode.InvalidResponse,
      message: `token refresh: the OAuth server answered HTTP ${response.status} without a token or an OAuth error`,
      status: response.status,
      request: { method: 'oauth/token' },
    })
  }
  return payload as Partial<HandlerRefreshAuth>
}
