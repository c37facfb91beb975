import type { LoggerInterface } from '../logger/logger.js'
import {
  invalidArgument,
  MAX_REQUEST_TIMEOUT_MS,
  requireHeaders,
  requireIntegerIn,
  requirePlainObject,
  unknownKeys,
} from '../validation/rules.js'
import { DEFAULT_REST_ANSWER_LIMIT_BYTES, MAX_REST_ANSWER_LIMIT_BYTES } from './answer-limit.js'

/** A fetch-compatible function: ky's `fetch` option, the transport seam. */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>

/** Settings of both HTTP transports (`options.httpOptions`). Unknown keys are dropped and their names logged. */
export interface TypeHttpOptions {
  /**
   * Fetch-compatible function that sends the requests. Default: a keep-alive `undici.request` pool (the fastest
   * measured). Whatever the adapter, a request that carries a secret or a token (every one the client sends) goes out
   * with `redirect: 'manual'` and a redirect answer is refused (`JSSDK_REDIRECT_REFUSED`); an adapter must honour
   * `redirect` and `signal` of what it is given.
   */
  adapter?: FetchLike
  /**
   * Timeout of one request attempt, its answer's body included, ms, 1 to 600 000. Default 30 000 (the portal itself
   * stops a request at 60 s).
   */
  timeout?: number
  /**
   * Largest answer body of a REST call the client reads, bytes, 1 024 to 268 435 456 (256 MiB). Default 134 217 728
   * (128 MiB), above the largest answers measured (a v2 batch of 50 list pages of 50 deals: 5 MB, 76 MB with 50
   * custom text fields filled); a larger answer fails with `JSSDK_ANSWER_TOO_LARGE` once that much was read, and its
   * connection is closed. Raise it for v3 batches of long list pages (50 pages of 1 000 full tasks: 179 MB). The
   * OAuth server's answers have a fixed limit of 1 MiB.
   */
  maxAnswerBytes?: number
  /** Extra headers sent with every REST request: names are HTTP tokens, values have no control characters. */
  headers?: Record<string, string>
  /** Connections per origin in the default adapter's pool. Default 32. */
  connections?: number
  /** How long an idle keep-alive connection of the default adapter stays open, ms, 1 to 600 000. Default 4 000. */
  keepAliveTimeout?: number
  /**
   * Forward proxy for every request of the default adapter (REST and OAuth), an `http://` or `https://` URL
   * (`user:password@` becomes `Proxy-Authorization`). Without it, the default adapter follows `HTTP_PROXY`,
   * `HTTPS_PROXY` and `NO_PROXY` when `NODE_USE_ENV_PROXY=1` is set, as Node's own `fetch` does. A custom `adapter`
   * brings its own proxy: giving both is refused.
   */
  proxy?: string | URL
}

/** Where the default adapter sends its requests: straight, through the proxy the environment names, or through one URL. */
export type ProxySetting =
  | { readonly kind: 'none' }
  | { readonly kind: 'environment' }
  | { readonly kind: 'url'; readonly url: string }

/** {@link TypeHttpOptions} with defaults applied. */
export interface NormalizedHttpOptions {
  /** Custom adapter, when given. */
  adapter: FetchLike | undefined
  /** Timeout of one attempt, ms. */
  timeout: number
  /** Largest REST answer body read, bytes. */
  maxAnswerBytes: number
  /** Extra headers. */
  headers: Record<string, string>
  /** Pool size per origin. */
  connections: number
  /** Keep-alive of idle connections, ms. */
  keepAliveTimeout: number
  /** The proxy of the default adapter. */
  proxy: ProxySetting
}

const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'adapter',
  'timeout',
  'maxAnswerBytes',
  'headers',
  'connections',
  'keepAliveTimeout',
  'proxy',
])

const NO_PROXY: ProxySetting = { kind: 'none' }
const ENVIRONMENT_PROXY: ProxySetting = { kind: 'environment' }

/** Node's own switch for proxies from the environment (`NODE_USE_ENV_PROXY=1`), read when an instance is built. */
function environmentProxyEnabled(): boolean {
  const flag = globalThis.process?.env?.NODE_USE_ENV_PROXY
  return flag === '1' || flag === 'true'
}

/** The proxy setting of `field`; the URL given is never echoed in an error (it may hold credentials). */
export function normalizeProxy(field: string, value: unknown, adapter: unknown): ProxySetting {
  if (value === undefined) return environmentProxyEnabled() ? ENVIRONMENT_PROXY : NO_PROXY
  if (adapter !== undefined)
    throw invalidArgument(
      field,
      'applies to the default adapter only; a custom adapter brings its own proxy (for example an undici dispatcher)',
    )
  let url: URL
  try {
    url = value instanceof URL ? value : new URL(typeof value === 'string' ? value : '')
  } catch {
    throw invalidArgument(field, 'must be an http:// or https:// URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidArgument(field, `must be an http:// or https:// URL, not ${url.protocol}`)
  return { kind: 'url', url: url.href }
}

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
    maxAnswerBytes:
      options.maxAnswerBytes === undefined
        ? DEFAULT_REST_ANSWER_LIMIT_BYTES
        : requireIntegerIn(
            'httpOptions.maxAnswerBytes',
            options.maxAnswerBytes,
            1024,
            MAX_REST_ANSWER_LIMIT_BYTES,
          ),
    headers: requireHeaders('httpOptions.headers', options.headers ?? {}),
    connections: optionalInteger('connections', options.connections, Number.MAX_SAFE_INTEGER, 32, false),
    keepAliveTimeout: optionalInteger(
      'keepAliveTimeout',
      options.keepAliveTimeout,
      MAX_KEEP_ALIVE_MS,
      4_000,
      true,
    ),
    proxy: normalizeProxy('httpOptions.proxy', options.proxy, options.adapter),
  }
}

/** The options a client is built from again (a fleet builds one per portal from its own normalized options). */
export function givenHttpOptions(http: NormalizedHttpOptions): TypeHttpOptions {
  return {
    ...(http.adapter ? { adapter: http.adapter } : {}),
    timeout: http.timeout,
    maxAnswerBytes: http.maxAnswerBytes,
    headers: http.headers,
    connections: http.connections,
    keepAliveTimeout: http.keepAliveTimeout,
    ...(http.proxy.kind === 'url' ? { proxy: http.proxy.url } : {}),
  }
}
