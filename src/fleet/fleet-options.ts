import {
  type NormalizedHttpOptions,
  normalizeHttpOptions,
  type TypeHttpOptions,
} from '../http/http-options.js'
import { ParamsFactory, unknownRestrictionKeys } from '../limits/params-factory.js'
import { sharedParams } from '../limits/restriction-manager.js'
import type { RestrictionParams, RestrictionParamsInput } from '../limits/restriction-params.js'
import { createDefaultLogger } from '../logger/logger.js'
import { RedactingLogger } from '../logger/redacting-logger.js'
import { SecretRegistry } from '../logger/secret-registry.js'
import { isSupportedLogger, type SupportedLogger } from '../logger/structured-logger.js'
import { MemoryStore } from '../store/memory-store.js'
import type { TokenStore } from '../store/token-store.js'
import { validateStore } from '../store/validate-store.js'
import { TrustedOAuthServers } from '../trust/oauth-servers.js'
import type { CallbackRefreshAuth, PortalOAuthSecret, PortalOAuthSecretInput } from '../types/auth.js'
import { validateSecret } from '../validation/auth-params.js'
import {
  invalidArgument,
  requireBoolean,
  requireIntegerIn,
  requirePlainObject,
  unknownKeys,
} from '../validation/rules.js'

/** How long a held portal stays without a `get()` before it is released, ms, by default: 5 minutes. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000

/** Options of `new PortalFleet(options)`. */
export interface PortalFleetOptions {
  /** The application's `client_id` and `client_secret`; each may come straight from `process.env`. */
  oAuthSecret: PortalOAuthSecretInput
  /**
   * Where the pairs of every portal, their refresh locks and buckets live; share one backend between the fleets of
   * every process (`RedisStore` from `portal-oauth/redis`). Default: a new `MemoryStore` (this fleet only).
   */
  store?: TokenStore
  /** Rate limit, operating limit and retries of every portal's client; merged over `ParamsFactory.getDefault()`. */
  restrictionParams?: RestrictionParamsInput
  /** HTTP settings of every portal's client, and of the check of a repeated install. */
  httpOptions?: TypeHttpOptions
  /** Logger of the fleet and of every portal's client, console- or pino-shaped; secrets are redacted either way. */
  logger?: SupportedLogger
  /**
   * A held portal's client is released (and destroyed) after this many ms without a `get()` for it, checked every
   * half of it (at most every minute); 1 to 86 400 000. Default 300 000 (5 minutes).
   */
  idleTimeout?: number
  /** Run after every refresh a portal's client made (not for a pair taken from the store): persist the pair. */
  callbackRefreshAuth?: CallbackRefreshAuth
  /**
   * The OAuth servers (origins) that may receive the client secret and refresh tokens, and that prove install and
   * update events. Default: the vendor's `https://oauth.bitrix.info` and `https://oauth.bitrix24.tech`; origins in
   * `PORTAL_OAUTH_TRUSTED_SERVERS` (where `portal-oauth/testing` adds each emulator it runs) are trusted besides.
   */
  oauthServers?: readonly (string | URL)[]
  /**
   * Take install and update events of portals whose REST root is plain `http://` on another machine, where their
   * tokens travel unencrypted. Default false: such an event is refused (`JSSDK_INVALID_ARGUMENT` naming
   * `auth[client_endpoint]`); loopback portals are always taken.
   */
  plainHttpPortals?: boolean
}

/** {@link PortalFleetOptions} validated, with defaults. */
export interface FleetSettings {
  secret: PortalOAuthSecret
  store: TokenStore
  restrictionParams: RestrictionParams
  httpOptions: NormalizedHttpOptions
  /** The logger as given, handed to every portal's client; `undefined` for the default. */
  givenLogger: SupportedLogger | undefined
  /** The fleet's own logger, redacting the client secret. */
  logger: RedactingLogger
  /**
   * The fleet's secret registry: the client secret only. Each operation layers the tokens of its event or pair on it
   * (`secrets.with(...)`) and drops them when it ends, so that a fleet of many portals pins no token.
   */
  secrets: SecretRegistry
  idleTimeoutMs: number
  callbackRefreshAuth: CallbackRefreshAuth | undefined
  /** The `oauthServers` option as given, handed to every portal's client. */
  oauthServers: readonly (string | URL)[] | undefined
  /** The trusted OAuth servers, validated. */
  trust: TrustedOAuthServers
  /** Whether events of portals over plain http on another machine are taken. */
  plainHttpPortals: boolean
}

const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'oAuthSecret',
  'store',
  'restrictionParams',
  'httpOptions',
  'logger',
  'idleTimeout',
  'callbackRefreshAuth',
  'oauthServers',
  'plainHttpPortals',
])

/** Validates the options like `PortalOAuth`'s (unknown keys warned), once for every portal the fleet will hold. */
export function normalizeFleetOptions(input: unknown): FleetSettings {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw invalidArgument('PortalFleet:', 'takes an options object { oAuthSecret, store?, ... }')
  const options = input as Record<string, unknown>
  if (options.logger !== undefined && !isSupportedLogger(options.logger))
    throw invalidArgument('PortalFleet: options.logger', 'must have debug, info, warn and error functions')
  const givenLogger = options.logger as SupportedLogger | undefined
  const secrets = new SecretRegistry()
  const logger = new RedactingLogger(givenLogger ?? createDefaultLogger(), secrets)
  const secret = validateSecret(options.oAuthSecret)
  secrets.pin(secret.clientSecret)
  const unknown = unknownKeys(options, KNOWN_KEYS)
  if (unknown.length > 0) logger.warn(`PortalFleet: ignored unknown option(s) ${unknown.join(', ')}`)
  if (options.callbackRefreshAuth !== undefined && typeof options.callbackRefreshAuth !== 'function')
    throw invalidArgument('PortalFleet: options.callbackRefreshAuth', 'must be a function')
  const restrictionInput = requirePlainObject('restrictionParams', options.restrictionParams ?? {})
  const unknownRestrictions = unknownRestrictionKeys(restrictionInput)
  if (unknownRestrictions.length > 0)
    logger.warn(`PortalFleet: restrictionParams: ignored unknown option(s) ${unknownRestrictions.join(', ')}`)
  return {
    secret,
    store: validateStore(options.store) ?? new MemoryStore(),
    // Validated and stripped of unknown keys once, so that no portal's client warns of them again.
    // One frozen object for every client of the fleet, which each keeps without a copy.
    restrictionParams: sharedParams(ParamsFactory.merge(ParamsFactory.getDefault(), restrictionInput)),
    httpOptions: normalizeHttpOptions(options.httpOptions, logger),
    givenLogger,
    logger,
    secrets,
    idleTimeoutMs:
      options.idleTimeout === undefined
        ? DEFAULT_IDLE_TIMEOUT_MS
        : requireIntegerIn('PortalFleet: options.idleTimeout', options.idleTimeout, 1, 86_400_000, {
            unit: 'ms',
          }),
    callbackRefreshAuth: options.callbackRefreshAuth as CallbackRefreshAuth | undefined,
    // Copied as strings and frozen, so that it never changes and every client's trusted list is one object (see
    // TrustedOAuthServers.from).
    oauthServers: Array.isArray(options.oauthServers)
      ? (Object.freeze(
          options.oauthServers.map((entry: unknown) => (entry instanceof URL ? entry.href : entry)),
        ) as readonly string[])
      : (options.oauthServers as readonly (string | URL)[] | undefined),
    trust: TrustedOAuthServers.from(options.oauthServers, 'PortalFleet: options.oauthServers'),
    plainHttpPortals: requireBoolean(
      'PortalFleet: options.plainHttpPortals',
      options.plainHttpPortals ?? false,
    ),
  }
}
