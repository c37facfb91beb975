import { tokenUrlFor } from '../auth/endpoints.js'
import { AjaxError } from '../errors/ajax-error.js'
import { redactSecrets } from '../errors/redact-secrets.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { type FetchLike, normalizeProxy } from '../http/http-options.js'
import { loadKy } from '../http/ky-module.js'
import { createPooledFetch } from '../http/undici-fetch.js'
import { TrustedOAuthServers } from '../trust/oauth-servers.js'
import type { PortalOAuthParams, PortalOAuthSecret, PortalOAuthSecretInput } from '../types/auth.js'
import { requireRestRoot, validateAuthParams, validateSecret } from '../validation/auth-params.js'
import { invalidArgument, requireIntegerIn } from '../validation/rules.js'

/** The prefix of this function's argument errors. */
const WHERE = 'exchangeAuthorizationCode:'

/** The OAuth server of the portal's cloud, where codes are exchanged unless `serverEndpoint` says otherwise. */
export const DEFAULT_SERVER_ENDPOINT = 'https://oauth.bitrix.info/rest/'

/** What {@link exchangeAuthorizationCode} takes. */
export interface AuthorizationCodeExchange {
  /** The `code` of the portal's redirect to the application; it lives 30 s and works once. */
  code: string
  /** The application's `client_id` and `client_secret`. */
  oAuthSecret: PortalOAuthSecretInput
  /**
   * The application token of the installation: the answer does not carry it. The install page receives it as
   * `APPLICATION_TOKEN` in its POST, the `ONAPPINSTALL` event as `auth[application_token]`.
   */
  applicationToken: string
  /** OAuth server REST root (`server_domain` of the redirect with `/rest/`). Default `https://oauth.bitrix.info/rest/`. */
  serverEndpoint?: string | undefined
  /**
   * The OAuth servers (origins) the client secret and the code may go to; `serverEndpoint` must be one of them.
   * Default: the vendor's; origins in `PORTAL_OAUTH_TRUSTED_SERVERS` are trusted besides.
   */
  oauthServers?: readonly (string | URL)[]
  /** Sends the request. Default a one-request undici pool (with `proxy`, or the environment's proxy). */
  adapter?: FetchLike
  /**
   * Forward proxy (`http://` or `https://` URL) when no `adapter` is given; without it `HTTP_PROXY`, `HTTPS_PROXY`
   * and `NO_PROXY` apply when `NODE_USE_ENV_PROXY=1` is set.
   */
  proxy?: string | URL
  /** Longest wait for the answer, ms, 1 to 600 000. Default 30 000. */
  timeout?: number
  /** Receives the pair: `{ install: (params) => fleet.install(params) }` or the fleet itself. */
  fleet?: {
    /** Stores the pair (`PortalFleet.install`). */
    install(params: PortalOAuthParams): Promise<void>
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A whole number from the JSON answer (a number, or digits), `undefined` when absent or odd. */
function whole(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : value
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 ? number : undefined
}

/**
 * The answer in constructor shape; `domain` is the portal's host (the answer's `domain` is the OAuth server's). A
 * `server_endpoint` outside the trusted servers gives way to the one asked (`asked`), as after a refresh.
 */
function pairFromAnswer(
  answer: Record<string, unknown>,
  applicationToken: string,
  asked: string,
  trust: TrustedOAuthServers,
  secrets: readonly string[],
): PortalOAuthParams {
  const given = answer.server_endpoint
  const serverEndpoint = typeof given === 'string' && trust.has(given) ? given : asked
  const expiresIn = whole(answer.expires_in) ?? 3600
  const clientEndpoint = answer.client_endpoint
  let domain: string | undefined
  try {
    domain = typeof clientEndpoint === 'string' ? new URL(clientEndpoint).host : undefined
  } catch {
    domain = undefined
  }
  try {
    return validateAuthParams({
      applicationToken,
      userId: whole(answer.user_id) ?? 0,
      memberId: answer.member_id,
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      expires: whole(answer.expires) ?? Math.floor(Date.now() / 1000) + expiresIn,
      expiresIn,
      scope: typeof answer.scope === 'string' ? answer.scope : '',
      domain,
      clientEndpoint,
      serverEndpoint,
      status: answer.status,
    })
  } catch (error) {
    throw new SdkError({
      code: SdkErrorCode.InvalidResponse,
      message: `exchangeAuthorizationCode: the OAuth server's answer is not a usable pair: ${redactSecrets(
        error instanceof Error ? error.message : String(error),
        secrets,
      )}`,
    })
  }
}

/**
 * Exchanges an authorization code for the first pair of an installation: POSTs `grant_type=authorization_code`,
 * `client_id`, `client_secret` and `code` as a form body (nothing in the URL) to the OAuth server's token endpoint,
 * and resolves to the pair in constructor shape. With `fleet`, the pair is installed there before this resolves.
 * An OAuth refusal (a used or expired code: `invalid_grant`, `expired_token`) rejects with an `SdkError` whose
 * `code` is the server's. No error names the client secret, the code, the application token or a token of the
 * answer, in any form `redactSecrets` finds (the server's own text included).
 */
export async function exchangeAuthorizationCode(
  request: AuthorizationCodeExchange,
): Promise<PortalOAuthParams> {
  if (!isRecord(request))
    throw invalidArgument(WHERE, 'takes an object { code, oAuthSecret, applicationToken }')
  if (typeof request.code !== 'string' || request.code === '')
    throw invalidArgument(`${WHERE} code`, 'must be a non-empty string')
  if (typeof request.applicationToken !== 'string' || request.applicationToken === '')
    throw invalidArgument(
      `${WHERE} applicationToken`,
      'must be a non-empty string (APPLICATION_TOKEN of the install page, or the event)',
    )
  const secret = validateSecret(request.oAuthSecret)
  const serverEndpoint = requireRestRoot('serverEndpoint', request.serverEndpoint ?? DEFAULT_SERVER_ENDPOINT)
  const trust = TrustedOAuthServers.from(request.oauthServers, `${WHERE} oauthServers`)
  trust.require(`${WHERE} serverEndpoint`, serverEndpoint)
  const timeout =
    request.timeout === undefined
      ? 30_000
      : requireIntegerIn(`${WHERE} timeout`, request.timeout, 1, 600_000, { unit: 'ms' })
  if (request.adapter !== undefined && typeof request.adapter !== 'function')
    throw invalidArgument(`${WHERE} adapter`, 'must be a fetch-compatible function')
  const proxy = normalizeProxy(`${WHERE} proxy`, request.proxy, request.adapter)
  if (request.adapter) return exchange(request, secret, serverEndpoint, trust, timeout, request.adapter)
  // One request: its own small pool, closed when the answer is read.
  const pool = createPooledFetch({ connections: 1, keepAliveTimeout: 1_000, proxy })
  try {
    return await exchange(request, secret, serverEndpoint, trust, timeout, pool.fetch)
  } finally {
    await pool.close()
  }
}

/** The token request itself and the answer read into a pair. */
async function exchange(
  request: AuthorizationCodeExchange,
  secret: PortalOAuthSecret,
  serverEndpoint: string,
  trust: TrustedOAuthServers,
  timeout: number,
  fetch: FetchLike,
): Promise<PortalOAuthParams> {
  let response: Response
  try {
    const { default: ky } = await loadKy()
    response = await ky.post(tokenUrlFor(serverEndpoint), {
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: secret.clientId,
        client_secret: secret.clientSecret,
        code: request.code,
      }),
      fetch,
      timeout,
      throwHttpErrors: false,
      headers: { accept: 'application/json' },
      retry: 0,
    })
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError'
    throw new AjaxError({
      code: timedOut ? SdkErrorCode.RequestTimeout : SdkErrorCode.NetworkError,
      message: `exchangeAuthorizationCode: ${timedOut ? 'the OAuth server did not answer in time' : 'connection to the OAuth server failed'}`,
      request: { method: 'oauth/token' },
    })
  }
  const text = await response.text()
  // What the server says back is kept out of the secrets sent and received: an echo of the code or the client secret.
  const secrets = [secret.clientSecret, request.code, request.applicationToken]
  let answer: unknown
  try {
    answer = JSON.parse(text)
  } catch {
    answer = undefined
  }
  if (isRecord(answer) && typeof answer.error === 'string' && answer.error !== '') {
    const description = redactSecrets(
      typeof answer.error_description === 'string' ? answer.error_description : '',
      secrets,
    )
    throw new SdkError({
      code: redactSecrets(answer.error, secrets),
      description,
      status: response.status,
      message: `exchangeAuthorizationCode: the OAuth server refused the code: ${redactSecrets(answer.error, secrets)}${description ? ` (${description})` : ''}, HTTP ${response.status}`,
    })
  }
  if (!response.ok || !isRecord(answer)) {
    throw new AjaxError({
      code: SdkErrorCode.InvalidResponse,
      message: `exchangeAuthorizationCode: the OAuth server answered HTTP ${response.status} without a pair or an OAuth error`,
      status: response.status,
      request: { method: 'oauth/token' },
    })
  }
  for (const field of ['access_token', 'refresh_token'])
    if (typeof answer[field] === 'string') secrets.push(answer[field])
  const params = pairFromAnswer(answer, request.applicationToken, serverEndpoint, trust, secrets)
  if (request.fleet) await request.fleet.install(params)
  return params
}
