import type { AccessTokenSettings } from '../../machines/access-token.types.js'
import type { FetchLike } from '../http/http-options.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { SecretRegistry } from '../logger/secret-registry.js'
import type { TokenStore } from '../store/token-store.js'
import type { TrustedOAuthServers } from '../trust/oauth-servers.js'
import type { InspectOption } from '../types/inspect-option.js'

/** What the auth manager needs from the instance that owns it. */
export interface AuthOAuthManagerDeps {
  /** Client clock, ms. */
  now: () => number
  /** The instance's redacting logger. */
  logger: LoggerInterface
  /** The instance's secrets; the current pair is replaced on every refresh. */
  secrets: SecretRegistry
  /** The instance's context, where the refresh request finds the instance's fetch adapter. */
  instance: { fetch(): FetchLike }
  /** Timeouts, retries and the eager margin of the token machine. */
  settings: AccessTokenSettings
  /** Where the pair and the refresh lock are shared with other instances; `null` to keep them to this one. */
  store: TokenStore | null
  /** Longest time this instance holds the portal's refresh lock in the store, ms. */
  lockTtlMs: number
  /** Passed to every actor the manager creates. */
  inspect: InspectOption | undefined
  /** The OAuth servers the client secret and refresh tokens may go to. */
  trust: TrustedOAuthServers
}
