import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { LoggerInterface } from '../logger/logger.js'

/** A fetch-compatible function: ky's `fetch` option, the transport seam. */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>

/** Settings of both HTTP transports (`options.httpOptions`). Unknown keys are dropped and their names logged. */
export interface TypeHttpOptions {
  /** Fetch-compatible function that sends the requests. Default: a keep-alive `undici.request` pool (the fastest measured). */
  adapter?: FetchLike
  /** Timeout of one request attempt, ms. Default 30 000 (the portal itself stops a request at 60 s). */
  timeout?: number
  /** Extra headers sent with every REST request. */
  headers?: Record<string, string>
  /** Connections per origin in the default adapter's pool. Default 32. */
  connections?: number
  /** How long an idle keep-alive connection of the default adapter stays open, ms. Default 4 000. */
  keepAliveTimeout?: number
}

/** {@link TypeHttpOptions} with defaults applied. */
export interface NormalizedHttpOptions {
  /** Custom adapter, when given. */
  adapter: FetchLike | undefined
  /** Timeout of one attempt, ms. */
  timeout: number
  /** Extra headers. */
  headers: Record<string, string>
  /** Pool size per origin. */
  connections: number
  /** Keep-alive of idle connections, ms. */
  keepAliveTimeout: number
}

const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'adapter',
  'timeout',
  'headers',
  'connections',
  'keepAliveTimeout',
])

function invalid(field: string, problem: string): SdkError {
  return new SdkError({ code: SdkErrorCode.InvalidArgument, message: `httpOptions.${field} ${problem}` })
}

function positiveInteger(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw invalid(field, `must be a positive integer, got ${String(value)}`)
  }
  return value
}

/** Validates `httpOptions`, drops unknown keys (logging their names at warn level) and applies defaults. */
export function normalizeHttpOptions(input: unknown, logger: LoggerInterface): NormalizedHttpOptions {
  const options = (input ?? {}) as Record<string, unknown>
  if (typeof options !== 'object' || Array.isArray(options)) throw invalid('', 'must be an object')
  const unknown = Object.keys(options).filter((key) => !KNOWN_KEYS.has(key))
  if (unknown.length > 0) {
    logger.warn(`httpOptions: dropped unknown option(s) ${unknown.join(', ')}`, { dropped: unknown })
  }
  if (options.adapter !== undefined && typeof options.adapter !== 'function') {
    throw invalid('adapter', 'must be a fetch-compatible function')
  }
  const headers = options.headers ?? {}
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw invalid('headers', 'must be an object of header names to strings')
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw invalid(`headers.${name}`, `must be a string, got ${typeof value}`)
  }
  return {
    adapter: options.adapter as FetchLike | undefined,
    timeout: positiveInteger('timeout', options.timeout, 30_000),
    headers: headers as Record<string, string>,
    connections: positiveInteger('connections', options.connections, 32),
    keepAliveTimeout: positiveInteger('keepAliveTimeout', options.keepAliveTimeout, 4_000),
  }
}
