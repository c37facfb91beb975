import type { ScopeWarnings } from '../catalogue/scope-warnings.js'
import type { RestrictionManager } from '../limits/restriction-manager.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { SecretRegistry } from '../logger/secret-registry.js'
import type { FetchLike, NormalizedHttpOptions } from './http-options.js'

/** What a transport needs from the instance it sends for (the instance's `PortalContext` provides it). */
export interface TransportContext {
  /** Secret values of the instance, kept out of errors. */
  readonly secrets: SecretRegistry
  /** The redacting logger. */
  readonly logger: LoggerInterface
  /** The instance's check of calls against the pair's scope, shared by both API versions. */
  readonly scopeWarnings: ScopeWarnings
  /** The limiter shared by both API versions. */
  readonly restrictions: RestrictionManager
  /** HTTP settings with defaults. */
  readonly http: NormalizedHttpOptions
  /** Calls of the instance made and not settled yet; the transports count them. */
  callsInFlight: number
  /** Throws a clear error once the instance is destroyed. */
  assertAlive(): void
  /** Emits the client-side runtime warning once per instance, unless silenced. */
  warnClientSide(transportWarns: boolean): void
  /** Silences the client-side runtime warning for the whole instance. */
  offClientSideWarning(): void
  /** The fetch-compatible adapter. */
  fetch(): FetchLike
}
