import type { LoggerInterface } from '../logger/logger.js'
import {
  invalidArgument,
  MAX_REQUEST_TIMEOUT_MS,
  requireHeaders,
  requireIntegerIn,
  requirePlainObject,
  unknownKeys,
} from '../validation/rules.js'

/** A fetch-compatible function: ky's `fetch` option, the transport seam. */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>

/** Settings of both HTTP transports (`options.httpOptions`). Unknown keys are dropped and their names logged. */
export interface TypeHttpOptions {
  /** Fetch-compatible function that sends the requests. Default: a keep-alive `undici.request` pool (the fastest measured). */
  adapter?: FetchLike
  /** Timeout of one request attempt, ms, 1 to 600 000. Default 30 000 (the portal itself stops a request at 60 s). */
  timeout?: number
  /** Extra headers sent with every REST request: names are HTTP tokens, values have no control characters. */
  headers?: Record<string, string>
  /** Connections per origin in the default adapter's pool. Default 32. */
  connections?: number
  /** How long an idle keep-alive connection of the default adapter stays open, ms, 1 to 600 000. Default 4 000. */
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

/** Longest idle keep-alive a user can mean, ms: ten minutes. */
const MAX_KEEP_ALIVE_MS = 600_000

function optionalInteger(field: string, value: unknown, max: number, fallback: number, ms: boolean): number {
  if (value === undefined) return fallback
  return requireIntegerIn(`httpOptions.${field}`, value, 1, max, ms ? { unit: 'ms' } : {})
}

/** Validates `httpOptions`, drops unknown keys (logging their names at warn level) and applies defaults. */
export function normalizeHttpOptions(input: unknown, logger: LoggerInterface): NormalizedHttpOptions {
  const options = requirePlainObject('httpOptions', input ?? {})
  const unknown = unknownKeys(options, KNOWN_KEYS)
  if (unknown.length > 0) {
    logger.warn(`httpOptions: dropped unknown option(s) ${unknown.join(', ')}`, { dropped: unknown })
  }
  if (options.adapter !== undefined && typeof options.adapter !== 'function') {
    throw invalidArgument('httpOptions.adapter', 'must be a fetch-compatible function')
  }
  return {
    adapter: options.adapter as FetchLike | undefined,
    timeout: optionalInteger('timeout', options.timeout, MAX_REQUEST_TIMEOUT_MS, 30_000, true),
    headers: requireHeaders('httpOptions.headers', options.headers ?? {}),
    connections: optionalInteger('connections', options.connections, Number.MAX_SAFE_INTEGER, 32, false),
    keepAliveTimeout: optionalInteger(
      'keepAliveTimeout',
      options.keepAliveTimeout,
      MAX_KEEP_ALIVE_MS,
      4_000,
      true,
    ),
  }
}
