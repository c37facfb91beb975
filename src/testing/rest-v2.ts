import { authenticate, type HookCredentials, type ParamSources, stripAuthParams } from './auth.js'
import {
  layerErrorReply,
  METHOD_NOT_FOUND,
  QUERY_LIMIT_EXCEEDED,
  v2ErrorReply,
  v2SuccessBody,
} from './envelope.js'
import { type IncomingCall, jsonReply, type Reply } from './http-server.js'
import { invokeMethod } from './invoke.js'
import { parsePhpQuery } from './php-query.js'
import type { EmulatorState } from './state.js'
import { timeBlock } from './time.js'
import type { EmulatorApiVersion } from './types.js'

/** A portal REST path: API version, lower-cased method and, for webhooks, the credentials in the path. */
export interface PortalRoute {
  version: EmulatorApiVersion
  method: string
  hook: HookCredentials | undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The query string parsed PHP-style. */
export function queryParams(call: IncomingCall): Record<string, unknown> {
  return parsePhpQuery(call.url.search.slice(1))
}

/**
 * v2 parameter sources: the query string and the body (form fields, or a JSON object for `application/json`), both
 * parsed PHP-style; the body wins when merged. Copies, so handlers may change them freely.
 */
export function v2Sources(call: IncomingCall): ParamSources {
  const body =
    (call.body.kind === 'form' || call.body.kind === 'json') && isRecord(call.body.value)
      ? (structuredClone(call.body.value) as Record<string, unknown>)
      : {}
  return { query: queryParams(call), body }
}

/**
 * `/rest/{method}[.json]` (and the webhook form): unknown method → 404 before auth; auth → 401; leaky bucket → 503;
 * operating limit → 429; then the handler. Success `{ result, next?, total?, time }`.
 */
export async function handleV2(state: EmulatorState, call: IncomingCall, route: PortalRoute): Promise<Reply> {
  const method = await state.methods.resolve(route.method, 'v2')
  if (!method) return layerErrorReply(METHOD_NOT_FOUND)
  const sources = v2Sources(call)
  const auth = authenticate(state, call, sources, route.hook)
  if ('error' in auth) return layerErrorReply(auth.error)
  if (!state.bucket.tryTake(state.now())) return layerErrorReply(QUERY_LIMIT_EXCEEDED)
  const params = stripAuthParams({ ...sources.query, ...sources.body })
  const outcome = await invokeMethod(state, method, params, auth.caller, 'v2')
  if (!outcome.ok) return v2ErrorReply(outcome.error)
  const time = timeBlock(call.watch, outcome.processingMs, outcome.operating)
  return jsonReply(200, v2SuccessBody(outcome.result, outcome.nav, time))
}
