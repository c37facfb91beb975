import type { LayerError } from './envelope.js'
import type { IncomingCall } from './http-server.js'
import type { EmulatorState } from './state.js'
import type { EmulatorAuthVia } from './types.js'

/** Who made a REST call. */
export interface Caller {
  /** The "application" for the operating limit: `'app'` for OAuth, `'hook:{id}'` for a webhook. */
  appKey: string
  userId: number
  via: EmulatorAuthVia
  isWebhook: boolean
}

/** Webhook credentials taken from the path. */
export interface HookCredentials {
  userId: number
  secret: string
}

/** Parameter names that carry the access token; removed before a method sees its parameters. */
export const AUTH_PARAMS = ['auth', 'access_token'] as const

const NO_AUTH: LayerError = { status: 401, code: 'NO_AUTH_FOUND', description: 'Wrong authorization data' }
const EXPIRED: LayerError = {
  status: 401,
  code: 'expired_token',
  description: 'The access token provided has expired',
}
const INVALID: LayerError = {
  status: 401,
  code: 'invalid_token',
  description: 'Unable to get application by token',
}
const BAD_HOOK: LayerError = {
  status: 401,
  code: 'INVALID_CREDENTIALS',
  description: 'Invalid request credentials',
}

function tokenValue(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value
  if (typeof value === 'number') return String(value)
  return undefined
}

/** Where a parameter was found. */
export interface ParamSources {
  body: Record<string, unknown>
  query: Record<string, unknown>
}

/**
 * Find the access token the way the portal does: `Authorization: Bearer` wins, then `auth`, then `access_token`
 * (each in the body first, then the query string).
 */
export function findAccessToken(
  call: IncomingCall,
  sources: ParamSources,
): { token: string; via: EmulatorAuthVia } | undefined {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(call.headers.authorization ?? '')
  if (header?.[1]) return { token: header[1], via: 'bearer' }
  for (const name of AUTH_PARAMS) {
    const fromBody = tokenValue(sources.body[name])
    if (fromBody !== undefined) return { token: fromBody, via: 'body' }
    const fromQuery = tokenValue(sources.query[name])
    if (fromQuery !== undefined) return { token: fromQuery, via: 'query' }
  }
  return undefined
}

/** Remove the auth parameters from a parameter object (in place). */
export function stripAuthParams(params: Record<string, unknown>): Record<string, unknown> {
  for (const name of AUTH_PARAMS) delete params[name]
  return params
}

/**
 * Authenticate a portal REST request (OAuth token or webhook path) and record `authVia` / `token` in the log.
 * Returns the caller or the 401 to answer.
 */
export function authenticate(
  state: EmulatorState,
  call: IncomingCall,
  sources: ParamSources,
  hook: HookCredentials | undefined,
): { caller: Caller } | { error: LayerError } {
  if (hook) {
    call.entry.authVia = 'webhook'
    const record = state.webhooks.verify(hook.userId, hook.secret)
    if (!record) return { error: BAD_HOOK }
    return { caller: { appKey: `hook:${record.id}`, userId: record.userId, via: 'webhook', isWebhook: true } }
  }
  const found = findAccessToken(call, sources)
  if (!found) {
    call.entry.authVia = 'none'
    return { error: NO_AUTH }
  }
  call.entry.authVia = found.via
  call.entry.token = found.token
  const check = state.tokens.checkAccess(found.token)
  if (!check.ok) return { error: check.reason === 'expired' ? EXPIRED : INVALID }
  return { caller: { appKey: 'app', userId: check.record.userId, via: found.via, isWebhook: false } }
}
