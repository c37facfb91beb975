import { AjaxError } from '../errors/ajax-error.js'
import { RefreshTokenError } from '../errors/refresh-token-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import type { SecretRedactor } from '../errors/to-error.js'
import type { FetchLike } from '../http/http-options.js'
import { loadKy } from '../http/ky-module.js'
import { NO_REDIRECT } from '../http/no-redirect.js'
import { type OAuthAnswer, readOAuthAnswer, refusedAnswerError } from '../http/refused-answer.js'
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
  /** Ends the request, its answer's body included (at the lock's TTL, or when the instance is destroyed). */
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
 * even on HTTP 200 (`wrong_client`). One attempt: the token machine decides whether to try again. The request follows
 * no redirect (`JSSDK_REDIRECT_REFUSED`) and its answer is read up to 1 MiB (`JSSDK_ANSWER_TOO_LARGE`), neither of
 * which is tried again; `signal` ends it, body included.
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
  let answer: OAuthAnswer
  try {
    const { default: ky } = await loadKy()
    const response = await ky.post(request.tokenUrl, {
      body,
      fetch: request.fetch,
      // The token machine bounds the attempt and retries it with a backoff shared by every waiting caller.
      timeout: false,
      signal: request.signal,
      redirect: NO_REDIRECT,
      throwHttpErrors: false,
      headers: { accept: 'application/json' },
      retry: 0,
    })
    answer = await readOAuthAnswer(response, request.tokenUrl, request.signal)
  } catch (error) {
    const refused = refusedAnswerError(error, {
      where: 'token refresh',
      who: 'the OAuth server',
      request: { method: 'oauth/token' },
    })
    if (refused) throw refused
    // Never the failure itself: an adapter's error may name the refresh token in a getter read twice.
    const code = failureCode(request.secrets.snapshot(error).data())
    throw new AjaxError({
      code: SdkErrorCode.NetworkError,
      message: `token refresh: connection to the OAuth server failed${code ? ` (${code})` : ''}`,
      request: { method: 'oauth/token' },
      cause: Object.assign(new Error(code ?? 'connection failed'), { code }),
    })
  }
  let payload: unknown
  try {
    payload = JSON.parse(answer.text)
  } catch {
    // Not JSON: no OAuth error to read, and no token (the check below says so).
  }
  if (isRecord(payload) && typeof payload.error === 'string' && payload.error !== '') {
    throw new RefreshTokenError({
      code: payload.error,
      description: typeof payload.error_description === 'string' ? payload.error_description : '',
      status: answer.status,
    })
  }
  if (!answer.ok || !isRecord(payload)) {
    throw new AjaxError({
      code: SdkErrorCode.InvalidResponse,
      message: `token refresh: the OAuth server answered HTTP ${answer.status} without a token or an OAuth error`,
      status: answer.status,
      request: { method: 'oauth/token' },
    })
  }
  return payload as Partial<HandlerRefreshAuth>
}
