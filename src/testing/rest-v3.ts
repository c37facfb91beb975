import { authenticate, type Caller, stripAuthParams } from './auth.js'
import {
  layerErrorReply,
  OPERATION_TIME_LIMIT,
  QUERY_LIMIT_EXCEEDED,
  v3ErrorReply,
  v3MethodErrorReply,
} from './envelope.js'
import type { EmulatorRestError } from './errors.js'
import type { IncomingCall, Reply } from './http-server.js'
import { canonicalJson, isValidIdempotencyKey } from './idempotency.js'
import { invokeMethod } from './invoke.js'
import { type PortalRoute, queryParams } from './rest-v2.js'
import type { EmulatorState } from './state.js'
import { timeBlock } from './time.js'

/** Code prefix of every v3 error. */
export const V3_PREFIX = 'BITRIX_REST_V3_EXCEPTION_'

/** 404 for an unknown v3 method. */
export function v3MethodNotFound(): Reply {
  return v3ErrorReply(404, `${V3_PREFIX}METHODNOTFOUNDEXCEPTION`, 'Method not found!')
}

/** 400 for a body that is not JSON. */
export function v3InvalidJson(message = 'Request body must be valid JSON'): Reply {
  return v3ErrorReply(400, `${V3_PREFIX}INVALIDJSONEXCEPTION`, message)
}

/**
 * The v3 request body: JSON only. An empty body is `{}`; a form body or unparsable text → INVALIDJSONEXCEPTION.
 * A body without a JSON content type is still tried as JSON. Returns a copy.
 */
export function v3Body(call: IncomingCall): { value: unknown } | { reply: Reply } {
  const { body } = call
  switch (body.kind) {
    case 'empty':
      return { value: {} }
    case 'json':
      return { value: structuredClone(body.value) }
    case 'other':
      try {
        return { value: JSON.parse(body.value) as unknown }
      } catch {
        return { reply: v3InvalidJson() }
      }
    default:
      return { reply: v3InvalidJson() }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function withHeaders(reply: Reply, headers: Record<string, string>): Reply {
  return { ...reply, headers: { ...reply.headers, ...headers } }
}

/**
 * Apply the `Idempotency-Key` header: the key is echoed on every answer; a successful answer is cached per
 * caller + user + method + key for 24 h and replayed with `Idempotent-Replayed: true`; the same key with other
 * parameters → 422 IDEMPOTENCYKEYREUSEDEXCEPTION; an invalid key → 400 INVALIDIDEMPOTENCYKEYEXCEPTION.
 */
export async function withIdempotency(
  state: EmulatorState,
  call: IncomingCall,
  caller: Caller,
  method: string,
  params: unknown,
  run: () => Promise<Reply>,
): Promise<Reply> {
  const key = call.headers['idempotency-key']
  if (key === undefined) return run()
  const echo = { 'idempotency-key': key }
  if (!isValidIdempotencyKey(key)) {
    const reply = v3ErrorReply(400, `${V3_PREFIX}INVALIDIDEMPOTENCYKEYEXCEPTION`, 'Invalid idempotency key')
    return withHeaders(reply, echo)
  }
  const scope = `${caller.appKey}|${caller.userId}|${method}|${key}`
  const fingerprint = canonicalJson(params)
  const found = state.idempotency.lookup(scope, fingerprint, state.now())
  if (found.kind === 'replay') {
    return {
      status: found.answer.status,
      body: found.answer.body,
      headers: { ...echo, 'idempotent-replayed': 'true' },
    }
  }
  if (found.kind === 'conflict') {
    const reply = v3ErrorReply(
      422,
      `${V3_PREFIX}IDEMPOTENCYKEYREUSEDEXCEPTION`,
      'The idempotency key was already used with other parameters',
    )
    return withHeaders(reply, echo)
  }
  const reply = await run()
  if (reply.status >= 200 && reply.status < 300) {
    state.idempotency.store(scope, fingerprint, reply.status, reply.body, state.now())
  }
  return withHeaders(reply, echo)
}

/** A method error on v3: the operating limit keeps the flat layer shape, everything else the v3 shape. */
export function v3OutcomeError(error: EmulatorRestError): Reply {
  if (error.code === OPERATION_TIME_LIMIT.code) return layerErrorReply(OPERATION_TIME_LIMIT)
  return v3MethodErrorReply(error)
}

/**
 * `/rest/api/{method}` (and the webhook form): unknown method → 404 METHODNOTFOUNDEXCEPTION; non-JSON body → 400
 * INVALIDJSONEXCEPTION; auth, leaky bucket and operating limit errors in the flat v2 shape; method errors as
 * `{ error: { code, message, validation? } }`. Success `{ result, time }`.
 */
export async function handleV3(state: EmulatorState, call: IncomingCall, route: PortalRoute): Promise<Reply> {
  const method = await state.methods.resolve(route.method, 'v3')
  if (!method) return v3MethodNotFound()
  const parsed = v3Body(call)
  if ('reply' in parsed) return parsed.reply
  if (!isRecord(parsed.value)) return v3InvalidJson('Request body must be a JSON object')
  const body = parsed.value
  const auth = authenticate(state, call, { body, query: queryParams(call) }, route.hook)
  if ('error' in auth) return layerErrorReply(auth.error)
  if (!state.bucket.tryTake(state.now())) return layerErrorReply(QUERY_LIMIT_EXCEEDED)
  const params = stripAuthParams(body)
  return withIdempotency(state, call, auth.caller, method.name, params, async () => {
    const outcome = await invokeMethod(state, method, params, auth.caller, 'v3')
    if (!outcome.ok) return v3OutcomeError(outcome.error)
    const time = timeBlock(call.watch, outcome.processingMs, outcome.operating)
    return { status: 200, body: { result: outcome.result, time } }
  })
}
