import { ScopeWarnings } from './catalogue/scope-warnings.js'
import { SdkError, SdkErrorCode } from './errors/sdk-error.js'
import {
  type FetchLike,
  type NormalizedHttpOptions,
  normalizeHttpOptions,
  type TypeHttpOptions,
} from './http/http-options.js'
import { createPooledFetch, type PooledFetch } from './http/undici-fetch.js'
import { RestrictionManager } from './limits/restriction-manager.js'
import type { RestrictionParamsInput } from './limits/restriction-params.js'
import { createDefaultLogger } from './logger/logger.js'
import { RedactingLogger } from './logger/redacting-logger.js'
import { SecretRegistry } from './logger/secret-registry.js'
import { isSupportedLogger, type SupportedLogger } from './logger/structured-logger.js'
import { clientSideWarningMessage, detectClientSideRuntime } from './runtime/client-side.js'
import type { InspectOption } from './types/inspect-option.js'
import { invalidArgument } from './validation/rules.js'

/** Options every portal client takes. */
export interface AbstractPortalOptions {
  /** Rate limit, operating limit, adaptive delay and retries; merged over `ParamsFactory.getDefault()`. */
  restrictionParams?: RestrictionParamsInput
  /** Settings of both HTTP transports. Unknown keys are dropped and their names logged. */
  httpOptions?: TypeHttpOptions
  /**
   * A console-shaped logger `(message, context)` or a pino/bunyan-shaped one `(context, message)` with `child()`;
   * default: warnings and errors to the console. Secrets are redacted either way.
   */
  logger?: SupportedLogger
  /** An XState inspector (for example `createWebSocketInspector().inspect`), passed to every actor of the instance. */
  inspect?: InspectOption
}

/** Keys `AbstractPortalOptions` knows; others (beyond a subclass's own) are reported. */
const KNOWN_OPTION_KEYS: ReadonlySet<string> = new Set([
  'restrictionParams',
  'httpOptions',
  'logger',
  'inspect',
])

/**
 * What one client instance holds once, built from its options at construction: the logger with the secrets it
 * redacts, the limiter, the HTTP settings and connection pool, the inspector, and whether the instance is still
 * alive. Transports, actions and the auth side receive it; none of them calls back into the portal class.
 */
export class PortalContext {
  /** The client's class name, for messages (`PortalOAuth`, `PortalHook`). */
  readonly className: string
  /** Secret values of this instance, removed from every log line and error message. */
  readonly secrets = new SecretRegistry()
  /** The redacting logger. */
  readonly logger: RedactingLogger
  /** The limiter shared by both API versions. */
  readonly restrictions: RestrictionManager
  /** The check of calls against the pair's scope (one warning per missing scope). */
  readonly scopeWarnings: ScopeWarnings
  /** HTTP settings with defaults. */
  readonly http: NormalizedHttpOptions
  /** Passed to every actor of the instance. */
  readonly inspect: InspectOption | undefined
  /** Calls made and not settled yet, counted by the transports (see `AbstractPortal.busy`). */
  callsInFlight = 0
  #pool: PooledFetch | null = null
  #destroyed = false
  #clientSideWarning = true

  /** Validates `options` (`ownOptionKeys` are the subclass's own, not reported as unknown). */
  constructor(
    className: string,
    options: AbstractPortalOptions | undefined,
    ownOptionKeys: readonly string[],
  ) {
    this.className = className
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw invalidArgument(`${className}: options`, 'must be an object')
    }
    const given = options ?? {}
    if (given.logger !== undefined && !isSupportedLogger(given.logger)) {
      throw invalidArgument(`${className}: options.logger`, 'must have debug, info, warn and error functions')
    }
    this.logger = new RedactingLogger(given.logger ?? createDefaultLogger(), this.secrets)
    const unknown = Object.keys(given).filter(
      (key) => !KNOWN_OPTION_KEYS.has(key) && !ownOptionKeys.includes(key),
    )
    if (unknown.length > 0) this.logger.warn(`${className}: ignored unknown option(s) ${unknown.join(', ')}`)
    this.restrictions = new RestrictionManager(given.restrictionParams, undefined, this.logger)
    this.scopeWarnings = new ScopeWarnings(className)
    this.http = normalizeHttpOptions(given.httpOptions, this.logger)
    this.inspect = given.inspect
  }

  /** Throws a clear error once the instance is destroyed. */
  assertAlive(): void {
    if (this.#destroyed) {
      throw new SdkError({
        code: SdkErrorCode.Destroyed,
        message: `${this.className} was destroyed; create a new instance to make calls`,
      })
    }
  }

  /** The fetch-compatible adapter: `httpOptions.adapter`, or the instance's keep-alive pool (created on first use). */
  fetch(): FetchLike {
    if (this.http.adapter) return this.http.adapter
    this.assertAlive()
    this.#pool ??= createPooledFetch(this.http)
    return this.#pool.fetch
  }

  /** Silences the client-side runtime warning for the whole instance. */
  offClientSideWarning(): void {
    this.#clientSideWarning = false
  }

  /**
   * Emits the client-side runtime warning once per instance, before its first call, unless the instance or the
   * calling transport (`transportWarns` false) silenced it.
   */
  warnClientSide(transportWarns: boolean): void {
    if (!this.#clientSideWarning || !transportWarns) return
    this.#clientSideWarning = false
    const runtime = detectClientSideRuntime()
    if (runtime) this.logger.warn(clientSideWarningMessage(this.className, runtime))
  }

  /** Marks the instance destroyed: from now on {@link assertAlive} throws. `false` when it already was. */
  markDestroyed(): boolean {
    if (this.#destroyed) return false
    this.#destroyed = true
    return true
  }

  /** Stops the limiter and closes the connection pool (after {@link markDestroyed} and the auth side's own stop). */
  async close(): Promise<void> {
    const pool = this.#pool
    this.#pool = null
    await Promise.all([this.restrictions.destroy(), pool?.close()])
  }
}
