import { authenticate } from './auth.js'
import { flatError, layerErrorReply } from './envelope.js'
import { type IncomingCall, jsonReply, type Reply, type Router } from './http-server.js'
import { v2Sources } from './rest-v2.js'
import type { EmulatorState } from './state.js'
import { timeBlock } from './time.js'
import type { IssuedPair } from './tokens.js'
import type { EmulatorTokenFailure, EmulatorTokenPatch } from './types.js'

/**
 * The token endpoint's success body, keys in the live order (contract 3.3); `domain` is the OAuth server host,
 * numbers are JSON numbers.
 */
export function tokenResponseBody(state: EmulatorState, pair: IssuedPair): Record<string, unknown> {
  const { settings, endpoints } = state
  return {
    access_token: pair.access.token,
    expires: pair.access.expires,
    expires_in: pair.access.expiresIn,
    scope: settings.scope,
    domain: endpoints.oauthHost,
    server_endpoint: endpoints.serverEndpoint,
    status: settings.status,
    client_endpoint: endpoints.clientEndpoint,
    member_id: settings.memberId,
    user_id: pair.access.userId,
    refresh_token: pair.refresh.token,
  }
}

function oauthError(status: number, error: string, description?: string): Reply {
  return jsonReply(
    status,
    description === undefined ? { error } : { error, error_description: description },
    error,
  )
}

function tokenParams(call: IncomingCall): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of call.url.searchParams) out[key] = value
  const body = call.body.kind === 'form' || call.body.kind === 'json' ? call.body.value : undefined
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body)) {
      if (typeof value === 'string' || typeof value === 'number') out[key] = String(value)
    }
  }
  return out
}

const CODE_FAILURES = {
  unknown: { error: 'invalid_grant', description: 'Invalid authorization code' },
  used: { error: 'invalid_grant', description: 'The authorization code was already used' },
  expired: { error: 'expired_token', description: 'The authorization token provided has expired.' },
} as const

/**
 * `grant_type=authorization_code` with client credentials already checked: a code from `issueAuthorizationCode()`
 * gives a new pair once within 30 s; an unknown or used code answers 400 `invalid_grant`, an expired one 400
 * `expired_token` (what the portal was seen to answer).
 */
function handleCodeGrant(state: EmulatorState, code: string): Reply {
  const outcome = state.codes.exchange(code, state.tokens)
  if (!outcome.ok) {
    const failure = CODE_FAILURES[outcome.reason]
    return oauthError(400, failure.error, failure.description)
  }
  return jsonReply(200, patched(tokenResponseBody(state, outcome.pair), state.faults.takeTokenPatch()))
}

const REFRESH_FAILURES = {
  unknown: 'The refresh token is unknown',
  expired: 'The refresh token has expired',
  used: 'The refresh token was already used',
  revoked: 'The application was uninstalled',
} as const

/**
 * `GET|POST /oauth/token/` (query and form body merged, body wins, extra parameters ignored). Order: forced failure
 * (`failOAuth`) → missing `grant_type` / `refresh_token` / `code` (400 `invalid_request`) → unknown `client_id`
 * (HTTP 200 `{"error":"wrong_client"}`) → wrong secret (400 `invalid_client`) → `authorization_code` (see
 * {@link handleCodeGrant}) → other grant types (400 `unsupported_grant_type`) → unknown, used or
 * expired refresh token (400 `invalid_grant`) → new pair.
 */
export async function handleToken(state: EmulatorState, call: IncomingCall): Promise<Reply> {
  const params = tokenParams(call)
  const grant = params.grant_type
  if (grant !== undefined) call.entry.grantType = grant
  if (params.refresh_token) call.entry.token = params.refresh_token
  const forced = state.faults.takeOAuthFailure()
  if (forced) return oauthError(forced.status ?? 400, forced.error, forced.error_description)
  const raw = state.faults.takeTokenFailure()
  if (raw) {
    // A processed failure rotates the pair first: the new one is lost with the answer, as behind a failing proxy.
    if (raw.processed) await answerToken(state, params)
    return rawReply(raw)
  }
  return answerToken(state, params)
}

const DEFAULT_FAILURE_PAGE =
  '<html><head><title>500 Internal Server Error</title></head><body>Internal Server Error</body></html>'

function rawReply(failure: EmulatorTokenFailure): Reply {
  return {
    status: failure.status,
    body: failure.body ?? DEFAULT_FAILURE_PAGE,
    headers: { 'content-type': failure.contentType ?? 'text/html; charset=utf-8' },
    errorCode: `HTTP_${failure.status}`,
  }
}

/** The body with a forced patch applied: keys set, keys removed. */
function patched(
  body: Record<string, unknown>,
  patch: EmulatorTokenPatch | undefined,
): Record<string, unknown> {
  if (!patch) return body
  const out: Record<string, unknown> = { ...body, ...patch.set }
  for (const key of patch.remove ?? []) delete out[key]
  return out
}

/** The token endpoint's checks and answer once no fault applies. */
async function answerToken(state: EmulatorState, params: Record<string, string>): Promise<Reply> {
  const grant = params.grant_type
  if (!grant) return oauthError(400, 'invalid_request', 'No "grant_type" parameter found')
  if (grant === 'refresh_token' && !params.refresh_token) {
    return oauthError(400, 'invalid_request', 'No "refresh_token" parameter found')
  }
  if (grant === 'authorization_code' && !params.code) {
    return oauthError(400, 'invalid_request', 'No "code" parameter found')
  }
  if (params.client_id !== state.settings.clientId) return oauthError(200, 'wrong_client')
  if (params.client_secret !== state.settings.clientSecret) {
    return oauthError(400, 'invalid_client', 'Invalid client credentials')
  }
  if (grant === 'authorization_code') return handleCodeGrant(state, params.code ?? '')
  if (grant !== 'refresh_token') {
    return oauthError(400, 'unsupported_grant_type', `Grant type "${grant}" is not supported`)
  }
  const outcome = state.tokens.refresh(params.refresh_token ?? '')
  if (!outcome.ok) return oauthError(400, 'invalid_grant', REFRESH_FAILURES[outcome.reason])
  return jsonReply(200, patched(tokenResponseBody(state, outcome.pair), state.faults.takeTokenPatch()))
}

/**
 * `/rest/app.info` on the OAuth server: the trusted view of the installation for the presented access token
 * (`auth`, `access_token` or Bearer): the application's `client_id`, and in `install` the portal's `member_id`,
 * `client_endpoint`, and `domain` and `uri` (its origin) unless it is a farm's portal, which has no origin of its
 * own. Applications prove an install event's token with it.
 */
export async function handleOAuthAppInfo(state: EmulatorState, call: IncomingCall): Promise<Reply> {
  const sources = v2Sources(call)
  const auth = authenticate(state, call, sources, undefined)
  if ('error' in auth) return layerErrorReply(auth.error)
  const check = call.entry.token === undefined ? undefined : state.tokens.checkAccess(call.entry.token)
  const expires = check?.ok ? check.record.expires : undefined
  const { settings, endpoints } = state
  const result = {
    scope: settings.scope,
    client_id: settings.clientId,
    expires,
    user_id: auth.caller.userId,
    status: settings.status,
    install: {
      installed: true,
      version: 1,
      // A portal of a farm shares its host with the others: its REST root, not its origin, names it.
      ...(endpoints.clientEndpoint === `${endpoints.portalOrigin}/rest/` && {
        uri: `${endpoints.portalOrigin}/`,
        domain: endpoints.portalHost,
      }),
      client_endpoint: endpoints.clientEndpoint,
      member_id: settings.memberId,
      status: settings.status,
    },
  }
  return jsonReply(200, { result, time: timeBlock(call.watch, 0) })
}

/** Routes of the OAuth server: the token endpoint and `app.info`; any other path → 404. */
export function oauthRouter(state: EmulatorState): Router {
  return (url) => {
    const path = url.pathname
    if (path === '/oauth/token/' || path === '/oauth/token') {
      return { kind: 'token', handle: (call) => handleToken(state, call) }
    }
    if (path === '/rest/app.info' || path === '/rest/app.info/' || path === '/rest/app.info.json') {
      return {
        kind: 'rest',
        apiVersion: 'v2',
        restMethod: 'app.info',
        handle: (call) => handleOAuthAppInfo(state, call),
      }
    }
    return { kind: 'other', handle: async () => flatError(404, 'not_found', 'Not found') }
  }
}
