import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { invalidArgument, requireNoCredentials } from '../validation/rules.js'

/**
 * The vendor's public OAuth servers (protocol: "Authorization server"): by default the only places a client secret,
 * a refresh token or an authorization code is sent.
 */
export const DEFAULT_OAUTH_SERVERS: readonly string[] = Object.freeze([
  'https://oauth.bitrix.info',
  'https://oauth.bitrix24.tech',
])

/**
 * An environment variable of comma-separated origins trusted besides `oauthServers` (or the defaults), read at each
 * check: set by whoever runs the application (a self-hosted OAuth server), or by `portal-oauth/testing` for the
 * emulators it runs.
 */
export const TRUSTED_SERVERS_ENV = 'PORTAL_OAUTH_TRUSTED_SERVERS'

/** Origins this process added to {@link TRUSTED_SERVERS_ENV} for running emulators, with how many run on each. */
const added = new Map<string, number>()

function setEnvironmentOrigins(origins: readonly string[]): void {
  if (origins.length > 0) process.env[TRUSTED_SERVERS_ENV] = origins.join(',')
  else delete process.env[TRUSTED_SERVERS_ENV]
}

/**
 * Trusts `origin` until the returned function is called, by adding it to {@link TRUSTED_SERVERS_ENV} of this
 * process: clients here and in child processes started meanwhile (workers, scripts) trust it with no option. The
 * testing entry does it for each emulator it starts; entries set by whoever started the process stay.
 */
export function trustWhileRunning(origin: string): () => void {
  const key = new URL(origin).origin
  const count = added.get(key)
  if (count !== undefined) added.set(key, count + 1)
  else if (!environmentOrigins().includes(key)) {
    added.set(key, 1)
    setEnvironmentOrigins([...environmentOrigins(), key])
  }
  let done = false
  return () => {
    if (done) return
    done = true
    const left = (added.get(key) ?? 0) - 1
    if (left > 0) {
      added.set(key, left)
      return
    }
    if (!added.delete(key)) return
    setEnvironmentOrigins(environmentOrigins().filter((entry) => entry !== key))
  }
}

/** The option's name without the class that takes it: `PortalFleet: options.oauthServers` → `options.oauthServers`. */
function label(option: string): string {
  // Stryker disable next-line Regex: every option name has one "Class: " prefix, at its start
  return option.replace(/^\w+: /, '')
}

/** `value` as an absolute http(s) URL, or `undefined` when it is none. */
function httpUrl(value: string): URL | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined
}

/** `scheme://host[:port]` of a URL, or `undefined` when it is no absolute http(s) URL. */
function httpOrigin(value: string): string | undefined {
  return httpUrl(value)?.origin
}

/** The origins of the environment variable; a malformed entry is skipped (it trusts nothing). */
function environmentOrigins(): string[] {
  // Stryker disable next-line ConditionalExpression,StringLiteral: on Node, where this runs, process is always defined
  const raw = typeof process === 'undefined' ? undefined : process.env[TRUSTED_SERVERS_ENV]
  if (!raw) return []
  return raw
    .split(',')
    .map((entry) => httpOrigin(entry.trim()))
    .filter((origin): origin is string => origin !== undefined)
}

/** The key of the default list in {@link made}. */
const DEFAULT_KEY: object = {}

/** The lists made from the defaults or from a frozen array, by option name (messages name it). */
const made = new WeakMap<object, Map<string, TrustedOAuthServers>>()

/**
 * Where an instance may send what only the application and the OAuth server may know: the client secret, refresh
 * tokens, authorization codes, and the access tokens of events to prove. Every request that carries one asks
 * {@link require} first, whatever a pair, a store row, an event or a refresh answer says.
 */
export class TrustedOAuthServers {
  readonly #origins: ReadonlySet<string>
  /** The option's name in messages: `options.oauthServers`. */
  readonly #option: string

  private constructor(origins: ReadonlySet<string>, option: string) {
    this.#origins = origins
    this.#option = option
  }

  /**
   * Validates the `oauthServers` option (`option` names it in errors): absolute http(s) URLs whose origins are
   * trusted; an empty list trusts only the environment's. `undefined` gives the defaults.
   */
  static from(input: unknown, option: string): TrustedOAuthServers {
    // The same list (the defaults, or a frozen array that cannot change) gives the same object: a fleet's thousands
    // of clients hold one.
    // Stryker disable next-line ConditionalExpression: see the cache below
    const frozen = Array.isArray(input) && Object.isFrozen(input)
    // Stryker disable next-line ConditionalExpression: see the cache below
    const key = input === undefined ? DEFAULT_KEY : frozen ? input : null
    // Stryker disable next-line ConditionalExpression: see the cache below
    if (key === null) return TrustedOAuthServers.#read(input, option)
    // What is cached saves memory only: a list read again trusts the same origins and names the same option. So a
    // new map or list each time, and one not kept, are the same to every caller.
    let byOption = made.get(key)
    // Stryker disable next-line ConditionalExpression: see above
    if (!byOption) {
      byOption = new Map()
      // Stryker disable next-line CallExpression: see above
      made.set(key, byOption)
    }
    let trust = byOption.get(option)
    // Stryker disable next-line ConditionalExpression: see above
    if (!trust) {
      trust = TrustedOAuthServers.#read(input, option)
      // Stryker disable next-line CallExpression: see above
      byOption.set(option, trust)
    }
    return trust
  }

  static #read(input: unknown, option: string): TrustedOAuthServers {
    if (input === undefined) return new TrustedOAuthServers(new Set(DEFAULT_OAUTH_SERVERS), label(option))
    if (!Array.isArray(input))
      throw invalidArgument(
        option,
        'must be an array of OAuth server origins such as https://oauth.bitrix.info',
      )
    const origins = new Set<string>()
    for (const [index, entry] of input.entries()) {
      const url = typeof entry === 'string' || entry instanceof URL ? httpUrl(String(entry)) : undefined
      if (url === undefined)
        throw invalidArgument(
          `${option}[${index}]`,
          'must be an absolute http(s) URL such as https://oauth.bitrix.info',
        )
      origins.add(requireNoCredentials(`${option}[${index}]`, url).origin)
    }
    return new TrustedOAuthServers(origins, label(option))
  }

  /** Whether `url` (an OAuth server REST root, a token URL) is on a trusted OAuth server. */
  has(url: string): boolean {
    const origin = httpOrigin(url)
    // Stryker disable next-line ConditionalExpression: neither the list nor the environment's holds undefined
    if (origin === undefined) return false
    return this.#origins.has(origin) || environmentOrigins().includes(origin)
  }

  /** The trusted origins now, for messages. */
  list(): string[] {
    return [...new Set([...this.#origins, ...environmentOrigins()])]
  }

  /**
   * Throws `JSSDK_UNTRUSTED_OAUTH_SERVER` naming `field` and the option when `url` is not on a trusted OAuth server:
   * nothing that carries a secret goes there.
   */
  require(field: string, url: string): void {
    if (this.has(url)) return
    throw untrustedServer(field, url, this.#option, this.list())
  }
}

/** The error of a URL outside the trusted OAuth servers; shows the origin only (a URL may carry more). */
export function untrustedServer(
  field: string,
  url: string,
  option: string,
  trusted: readonly string[],
): SdkError {
  const origin = httpOrigin(url) ?? 'an address that is no http(s) URL'
  return new SdkError({
    code: SdkErrorCode.UntrustedOAuthServer,
    message:
      `${field} names the OAuth server ${origin}, which is not trusted: the client secret and refresh tokens go only ` +
      `to ${option} (now ${trusted.length > 0 ? trusted.join(', ') : 'none'}) or ${TRUSTED_SERVERS_ENV}`,
  })
}
