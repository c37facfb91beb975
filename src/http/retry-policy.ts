import { loadedMethodTable, loadMethodTable } from '../catalogue/method-table.js'
import type { ApiVersion } from '../types/api-version.js'

/** Up to a quarter more than the backoff, at random: clients refused together do not come back together. */
export function retryJitter(delay: number): number {
  return delay * (1 + Math.random() / 4)
}

/** How a failed attempt failed, as far as retrying is concerned. */
export type FailureKind =
  /** The request never reached the portal (connection refused, host not found): always safe to send again. */
  | 'not-sent'
  /** The request may have reached the portal (timeout, reset after the body was sent). */
  | 'maybe-sent'
  /** The caller cancelled it. */
  | 'aborted'
  /**
   * Refused on this host before anything was sent: an invalid argument to fetch, undici or Node's HTTP layer (a
   * header value with a line break, a bad URL). Sending it again would fail the same way.
   */
  | 'refused'

/** Connection errors raised before any byte of the request left this host. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
])

/** Codes of argument checks in undici and Node that run before a request is written. */
const REFUSED_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_URL',
  'ERR_OUT_OF_RANGE',
])

/**
 * Whether `error` is a bare `TypeError` or `RangeError`: thrown by an argument check (the `Headers` or `Request`
 * constructor, `URL`), not by the network, whose failures come as `fetch failed` with a coded cause.
 */
function isBareArgumentError(error: unknown): boolean {
  return (
    (error instanceof TypeError || error instanceof RangeError) &&
    error.cause === undefined &&
    (error as { code?: unknown }).code === undefined
  )
}

function errorCodes(error: unknown): string[] {
  const codes: string[] = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
    const nested = (current as { errors?: unknown }).errors
    if (Array.isArray(nested)) for (const item of nested) codes.push(...errorCodes(item))
    current = (current as { cause?: unknown }).cause
  }
  return codes
}

/**
 * Classifies a thrown transport failure. Only what the network layer says was not sent (a connection code) is
 * `not-sent`; what an argument check refused is `refused`; anything else may have reached the portal.
 */
export function classifyFailure(error: unknown, signal?: AbortSignal): FailureKind {
  if (signal?.aborted) return 'aborted'
  const codes = errorCodes(error)
  if (codes.some((code) => REFUSED_CODES.has(code)) || (codes.length === 0 && isBareArgumentError(error)))
    return 'refused'
  return codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code)) ? 'not-sent' : 'maybe-sent'
}

/** The lowest-level code of a transport failure, for messages (`ECONNRESET`, `ECONNREFUSED`, ...). */
export function failureCode(error: unknown): string | undefined {
  return errorCodes(error).at(-1)
}

/** Last name segments of methods that only read: sending them twice creates nothing. */
const READ_SEGMENTS = new Set([
  'get',
  'list',
  'tail',
  'fields',
  'count',
  'current',
  'info',
  'search',
  'time',
  'getlist',
])
/** Whole method names that only read, beyond those the last segment already tells (`server.time`, `app.info`). */
const READ_METHODS = new Set(['profile', 'methods', 'scope'])

/** The name rule, for names the method catalogue lacks: the last segment is a read verb, or a known whole name. */
function readsByName(method: string): boolean {
  const name = method.toLowerCase()
  if (READ_METHODS.has(name)) return true
  const segment = name.slice(name.lastIndexOf('.') + 1)
  return READ_SEGMENTS.has(segment)
}

/**
 * Whether `method` only reads, so that repeating it after an ambiguous failure cannot create twice. A method of the
 * catalogue takes its documented read/write flag once the catalogue is loaded (a client loads it on its first call
 * that needs it, see docs/catalogue.md); any other name, and every name before that, the name rule: the last
 * segment is a read verb (`get`, `list`, `tail`, `fields`, ...) or the name is `profile`, `methods` or `scope`.
 */
export function isReadMethod(method: string, apiVersion: ApiVersion = 'v2'): boolean {
  const facts = loadedMethodTable()?.lookup(apiVersion, method)
  return facts ? !facts.writes : readsByName(method)
}

/**
 * Whether every one of a batch's `methods` only reads, told by the catalogue: the first batch of a process that no
 * call has loaded it for waits for the load (see docs/catalogue.md), so that its transport is told the exact answer.
 */
export async function commandsRead(methods: readonly string[], apiVersion: ApiVersion): Promise<boolean> {
  if (loadedMethodTable() === null) await loadMethodTable()
  return methods.every((method) => isReadMethod(method, apiVersion))
}

/** Whether a header set carries a v3 `Idempotency-Key`. */
export function hasIdempotencyKey(headers: Record<string, string> | undefined): boolean {
  return (
    headers !== undefined && Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key')
  )
}

/**
 * Whether a call whose attempt failed in transit may be sent again. A request that never left is always
 * retryable. One that may have reached the portal is retried only when the call cannot create twice (a read, or a v3
 * call with an `Idempotency-Key`), unless the caller forces it either way with `retryOnNetworkError`.
 */
export function mayRetryFailure(options: {
  kind: FailureKind
  apiVersion: ApiVersion
  method: string
  headers: Record<string, string> | undefined
  /** The call's own `retryOnNetworkError`, when set. */
  callOverride: boolean | undefined
  /** The instance's `restrictionParams.retryOnNetworkError`. */
  instanceDefault: boolean
  /** Whether every command of the call only reads (for batches); defaults to {@link isReadMethod} of `method`. */
  readOnly?: boolean
}): boolean {
  if (options.kind === 'aborted' || options.kind === 'refused') return false
  if (options.kind === 'not-sent') return true
  if (options.callOverride !== undefined) return options.callOverride
  if (!options.instanceDefault) return false
  const readOnly = options.readOnly ?? isReadMethod(options.method, options.apiVersion)
  return readOnly || (options.apiVersion === 'v3' && hasIdempotencyKey(options.headers))
}
