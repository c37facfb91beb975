import { createActions, type PortalActions } from './actions/actions.js'
import type { InspectOption } from './auth/auth-oauth-manager.js'
import { SdkError, SdkErrorCode } from './errors/sdk-error.js'
import type { AuthStrategy } from './http/auth-strategy.js'
import {
  type FetchLike,
  type NormalizedHttpOptions,
  normalizeHttpOptions,
  type TypeHttpOptions,
} from './http/http-options.js'
import { RestTransport, type TypeHttp } from './http/rest-transport.js'
import { createPooledFetch, type PooledFetch } from './http/undici-fetch.js'
import { RestrictionManager } from './limits/restriction-manager.js'
import type { RestrictionParams, RestrictionParamsInput } from './limits/restriction-params.js'
import { createDefaultLogger } from './logger/logger.js'
import { RedactingLogger } from './logger/redacting-logger.js'
import { SecretRegistry } from './logger/secret-registry.js'
import { isSupportedLogger, type SupportedLogger } from './logger/structured-logger.js'
import { clientSideWarningMessage, detectClientSideRuntime } from './runtime/client-side.js'
import { createTools, type PortalTools } from './tools/tools.js'
import { ApiVersion } from './types/api-version.js'
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

/** The shape shared by `PortalOAuth` and `PortalHook` (contract 1.7). */
export interface TypePortal {
  /** Always `true` after construction. */
  readonly isInit: boolean
  /** The REST entry points. */
  readonly actions: PortalActions
  /** Probes of the connection: `ping`, `healthCheck`. */
  readonly tools: PortalTools
  /** The transport of an API version. */
  getHttpClient(version: ApiVersion): TypeHttp
  /** Replaces the transport of an API version. */
  setHttpClient(version: ApiVersion, client: TypeHttp): void
  /** Changes rate limit, operating limit and retries at run time. */
  setRestrictionManagerParams(params: RestrictionParamsInput): void
  /** The settings in force. */
  getRestrictionManagerParams(): RestrictionParams
  /** The logger lines go to (after redaction). */
  getLogger(): SupportedLogger
  /** Replaces the logger: console-shaped or pino/bunyan-shaped. */
  setLogger(logger: SupportedLogger): void
  /** Disables the browser-runtime warning on both transports. */
  offClientSideWarning(): void
  /** The portal origin. */
  getTargetOrigin(): string
  /** The REST root of each API version. */
  getTargetOriginWithPath(): Map<ApiVersion, string>
  /** Stops actors, limiter and connection pool; later calls reject. */
  destroy(): Promise<void>
}

/** Keys `AbstractPortalOptions` knows; others (beyond a subclass's own) are reported. */
const KNOWN_OPTION_KEYS: ReadonlySet<string> = new Set([
  'restrictionParams',
  'httpOptions',
  'logger',
  'inspect',
])

/**
 * What every portal client has: actions, transports, limiter, logger, client-side warning and `destroy`. A subclass
 * holds only its own authorisation, given to the transports as an {@link AuthStrategy}.
 */
export abstract class AbstractPortal implements TypePortal {
  /** Secret values of this instance, removed from every log line and error message. */
  protected readonly secrets = new SecretRegistry()
  /** The redacting logger. */
  protected readonly logger: RedactingLogger
  /** The limiter shared by both API versions. */
  protected readonly restrictions: RestrictionManager
  /** HTTP settings with defaults. */
  protected readonly httpOptions: NormalizedHttpOptions
  /** Passed to every actor of the instance. */
  protected readonly inspect: InspectOption | undefined
  readonly #className: string
  readonly #transports = new Map<ApiVersion, TypeHttp>()
  #actions: PortalActions | null = null
  #tools: PortalTools | null = null
  #pool: PooledFetch | null = null
  #destroyed = false
  #clientSideWarning = true
  #clientSideChecked = false

  protected constructor(
    className: string,
    options: AbstractPortalOptions | undefined,
    /** Option keys the subclass adds to {@link AbstractPortalOptions}. */
    ownOptionKeys: readonly string[] = [],
  ) {
    this.#className = className
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
    this.httpOptions = normalizeHttpOptions(given.httpOptions, this.logger)
    this.inspect = given.inspect
  }

  /** How the transports authorise requests. */
  protected abstract get authStrategy(): AuthStrategy

  /** Always `true`: there is no `init()` step. */
  get isInit(): boolean {
    return true
  }

  /** The REST entry points: `actions.v2.call.make(...)`, `actions.v3.call.make(...)`. */
  get actions(): PortalActions {
    this.#actions ??= createActions((version) => this.getHttpClient(version))
    return this.#actions
  }

  /** Probes of the connection: `tools.ping.make()`, `tools.healthCheck.make()`. */
  get tools(): PortalTools {
    this.#tools ??= createTools(() => this.actions.v2.call, this.logger)
    return this.#tools
  }

  getHttpClient(version: ApiVersion): TypeHttp {
    if (version !== ApiVersion.v2 && version !== ApiVersion.v3) {
      throw invalidArgument('getHttpClient: version', `must be v2 or v3; ${String(version)} is unknown`)
    }
    let transport = this.#transports.get(version)
    if (!transport) {
      transport = new RestTransport(version, {
        auth: this.authStrategy,
        restrictions: this.restrictions,
        logger: this.logger,
        secrets: this.secrets,
        http: this.httpOptions,
        fetch: () => this.fetchAdapter(),
        assertAlive: () => this.assertAlive(),
        warnClientSide: (caller) => this.#warnClientSide(caller),
      })
      if (!this.#clientSideWarning) transport.offClientSideWarning()
      this.#transports.set(version, transport)
    }
    return transport
  }

  setHttpClient(version: ApiVersion, client: TypeHttp): void {
    if (version !== ApiVersion.v2 && version !== ApiVersion.v3) {
      throw invalidArgument('setHttpClient: version', `must be v2 or v3; ${String(version)} is unknown`)
    }
    this.#transports.set(version, client)
  }

  setRestrictionManagerParams(params: RestrictionParamsInput): void {
    this.restrictions.setParams(params)
  }

  getRestrictionManagerParams(): RestrictionParams {
    return this.restrictions.params
  }

  getLogger(): SupportedLogger {
    return this.logger.target
  }

  setLogger(logger: SupportedLogger): void {
    if (!isSupportedLogger(logger)) {
      throw invalidArgument('setLogger: logger', 'must have debug, info, warn and error functions')
    }
    this.logger.target = logger
  }

  offClientSideWarning(): void {
    this.#clientSideWarning = false
    for (const transport of this.#transports.values()) transport.offClientSideWarning()
  }

  abstract getTargetOrigin(): string

  abstract getTargetOriginWithPath(): Map<ApiVersion, string>

  async destroy(): Promise<void> {
    if (this.#destroyed) return
    this.#destroyed = true
    // A refresh in flight finishes (and is persisted) before the pool it uses closes.
    await this.destroyAuth()
    const pool = this.#pool
    this.#pool = null
    await Promise.all([this.restrictions.destroy(), pool?.close()])
  }

  /** Stops what the subclass owns (actors, refreshes); called once by {@link destroy}. */
  protected abstract destroyAuth(): void | Promise<void>

  /** Throws a clear error once the instance is destroyed. */
  protected assertAlive(): void {
    if (this.#destroyed) {
      throw new SdkError({
        code: SdkErrorCode.Destroyed,
        message: `${this.#className} was destroyed; create a new instance to make calls`,
      })
    }
  }

  /** The fetch-compatible adapter: `httpOptions.adapter`, or the instance's keep-alive pool (created on first use). */
  protected fetchAdapter(): FetchLike {
    if (this.httpOptions.adapter) return this.httpOptions.adapter
    this.assertAlive()
    this.#pool ??= createPooledFetch(this.httpOptions)
    return this.#pool.fetch
  }

  #warnClientSide(transport: RestTransport): void {
    if (this.#clientSideChecked || !this.#clientSideWarning || !transport.clientSideWarning) return
    this.#clientSideChecked = true
    const runtime = detectClientSideRuntime()
    if (runtime) this.logger.warn(clientSideWarningMessage(this.#className, runtime))
  }
}
