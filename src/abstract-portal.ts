import { createActions, type PortalActions } from './actions/actions.js'
import type { AuthStrategy } from './http/auth-strategy.js'
import type { TypeHttp } from './http/rest-transport.js'
import { TransportRegistry } from './http/transport-registry.js'
import type { RestrictionParams, RestrictionParamsInput } from './limits/restriction-params.js'
import { isSupportedLogger, type SupportedLogger } from './logger/structured-logger.js'
import { type AbstractPortalOptions, PortalContext } from './portal-context.js'
import { createTools, type PortalTools } from './tools/tools.js'
import { ApiVersion } from './types/api-version.js'
import { invalidArgument } from './validation/rules.js'

export type { AbstractPortalOptions } from './portal-context.js'

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

/**
 * What every portal client has: actions, transports, limiter, logger, client-side warning and `destroy`, over the
 * context its constructor builds. A subclass holds only its own authorisation, given to the
 * transports as an {@link AuthStrategy}.
 */
export abstract class AbstractPortal implements TypePortal {
  /** @internal What the instance holds once: logger, secrets, limiter, HTTP settings and pool, inspector, liveness. */
  protected readonly context: PortalContext
  readonly #transports: TransportRegistry
  /** Built on first use: an idle instance (one per installed portal, say) holds none of its action objects. */
  #actions: PortalActions | null = null
  #tools: PortalTools | null = null

  /** @internal `context` comes from `AbstractPortal.createContext`; `auth` authorises every request of the instance. */
  protected constructor(context: PortalContext, auth: AuthStrategy) {
    this.context = context
    this.#transports = new TransportRegistry(context, auth)
  }

  /** @internal Validates the options every client takes (`ownOptionKeys` are the subclass's own) and builds the context. */
  protected static createContext(
    className: string,
    options: AbstractPortalOptions | undefined,
    ownOptionKeys: readonly string[] = [],
  ): PortalContext {
    return new PortalContext(className, options, ownOptionKeys)
  }

  /** Always `true`: there is no `init()` step. */
  get isInit(): boolean {
    return true
  }

  /** The REST entry points: `actions.v2.call.make(...)`, `actions.v3.call.make(...)`. */
  get actions(): PortalActions {
    this.#actions ??= createActions(this.#transports)
    return this.#actions
  }

  /** Probes of the connection: `tools.ping.make()`, `tools.healthCheck.make()`. */
  get tools(): PortalTools {
    this.#tools ??= createTools(this.actions.v2.call, this.context.logger)
    return this.#tools
  }

  getHttpClient(version: ApiVersion): TypeHttp {
    if (version !== ApiVersion.v2 && version !== ApiVersion.v3) {
      throw invalidArgument('getHttpClient: version', `must be v2 or v3; ${String(version)} is unknown`)
    }
    return this.#transports.get(version)
  }

  setHttpClient(version: ApiVersion, client: TypeHttp): void {
    if (version !== ApiVersion.v2 && version !== ApiVersion.v3) {
      throw invalidArgument('setHttpClient: version', `must be v2 or v3; ${String(version)} is unknown`)
    }
    this.#transports.set(version, client)
  }

  setRestrictionManagerParams(params: RestrictionParamsInput): void {
    this.context.restrictions.setParams(params)
  }

  getRestrictionManagerParams(): RestrictionParams {
    return this.context.restrictions.params
  }

  getLogger(): SupportedLogger {
    return this.context.logger.target
  }

  setLogger(logger: SupportedLogger): void {
    if (!isSupportedLogger(logger)) {
      throw invalidArgument('setLogger: logger', 'must have debug, info, warn and error functions')
    }
    this.context.logger.target = logger
  }

  offClientSideWarning(): void {
    this.#transports.offClientSideWarning()
  }

  abstract getTargetOrigin(): string

  abstract getTargetOriginWithPath(): Map<ApiVersion, string>

  /**
   * @internal Whether a call of the instance, or a refresh of its pair, is in flight: a `PortalFleet` never releases
   * a busy client, whatever its idle time.
   */
  get busy(): boolean {
    return this.context.callsInFlight > 0 || this.authBusy()
  }

  /** Whether the subclass's authorisation has work in flight (a refresh); see `busy`. */
  protected authBusy(): boolean {
    return false
  }

  async destroy(): Promise<void> {
    if (!this.context.markDestroyed()) return
    // A refresh in flight finishes (and is persisted) before the pool it uses closes.
    await this.destroyAuth()
    await this.context.close()
  }

  /** Stops what the subclass owns (actors, refreshes); called once by {@link destroy}. */
  protected abstract destroyAuth(): void | Promise<void>
}
