import type { AccessTokenRefreshOutput, RefreshFailure } from '../../machines/access-token.types.js'
import {
  type RefreshTrace,
  traceRefreshEnd,
  traceRefreshError,
  traceRefreshStart,
} from '../diagnostics/channels.js'
import { toError } from '../errors/to-error.js'
import type { CustomRefreshAuth, PortalOAuthParams, PortalOAuthSecret } from '../types/auth.js'
import type { AuthOAuthManagerDeps } from './auth-oauth-deps.js'
import { requestTokenRefresh } from './default-refresh.js'
import { tokenUrlFor } from './endpoints.js'
import { classifyRefreshFailure } from './refresh-failure.js'
import { applyRefreshResult } from './refresh-result.js'
import { RequestBounds } from './request-bounds.js'
import { UnsharedPairHint } from './unshared-pair-hint.js'

/** What a refresh attempt reads from, and commits to, the auth manager that holds the pair. */
export interface OwnRefreshHost {
  /** The pair held now. */
  pair(): PortalOAuthParams
  /** The generation of the pair held (the machine's). */
  generation(): number
  /** Makes `next` the pair held, the moment it arrives. */
  commit(next: PortalOAuthParams): void
  /**
   * The machine gave up on the attempt after `next` was committed (before its answer came, or while a shared store
   * took it): unless another pair replaced it meanwhile, it is the newest there is, so it replaces the one the machine
   * knows and is persisted.
   */
  committedLate(next: PortalOAuthParams): void
}

/**
 * One refresh attempt of this instance, the body of the `refreshTokens` actor (run under the store's lock when the
 * instance shares a store, see `SharedPair.refresh`): the OAuth request, or the custom refresh, then the commit. The
 * new pair is committed the moment it arrives, before the machine hears of it, so that no later failure (an odd
 * field, the attempt's timeout) can lose it.
 */
export class OwnRefresh {
  readonly #host: OwnRefreshHost
  readonly #secret: PortalOAuthSecret
  readonly #deps: AuthOAuthManagerDeps
  /** `setCustomRefreshAuth()`'s function, used instead of the OAuth request. */
  custom: CustomRefreshAuth | null = null
  /** Ends each request at the lock's TTL, and all of them once `destroy()` has let the refresh in flight end. */
  readonly #bounds = new RequestBounds()
  /** Explains a refused refresh token on an instance that shares its pair with no one; none with a store. */
  readonly #unshared: UnsharedPairHint | null

  constructor(host: OwnRefreshHost, secret: PortalOAuthSecret, deps: AuthOAuthManagerDeps) {
    this.#host = host
    this.#secret = secret
    this.#deps = deps
    this.#unshared = deps.store ? null : new UnsharedPairHint(deps.logger)
  }

  /** Ends the requests still in flight and any later one (`destroy()`, once the refresh in flight has ended). */
  abandon(): void {
    this.#bounds.abandon()
  }

  /** Runs one attempt. Rejects with a {@link RefreshFailure} holding an error free of secrets. */
  async run(signal: AbortSignal): Promise<AccessTokenRefreshOutput> {
    const generation = this.#host.generation()
    const previous = this.#host.pair()
    const trace = traceRefreshStart(generation, previous.memberId)
    // What a custom refresh throws is rethrown unchanged (contract 7): only the OAuth server's refusal is explained.
    const unshared = this.custom ? null : this.#unshared
    let applied: ReturnType<typeof applyRefreshResult>
    try {
      const raw = await this.#request(previous, signal)
      applied = applyRefreshResult(
        previous,
        raw as Parameters<typeof applyRefreshResult>[1],
        this.#deps.now(),
        (url) => this.#deps.trust.has(url),
      )
    } catch (error) {
      throw this.#failure(unshared ? unshared.explain(error) : error, signal, trace)
    }
    if (this.#host.generation() !== generation) {
      // setAuthOptions() replaced the pair meanwhile; the new one wins.
      this.#deps.logger.warn('token refresh finished after the pair was replaced; its pair is not used')
      return { expires: this.#host.pair().expires }
    }
    const next = applied.params
    this.#host.commit(next)
    if (applied.repaired.length > 0) {
      const fields = applied.repaired
      this.#deps.logger.warn(`token refresh answer had odd fields, repaired: ${fields.join(', ')}`, {
        fields,
      })
    }
    this.#deps.logger.info('token pair refreshed', { generation: generation + 1, expires: next.expires })
    traceRefreshEnd(trace, generation + 1, next.expires)
    // The machine may give the attempt up after the commit too (a shared store's save comes next): it hears of the
    // pair then. A signal is only aborted while its attempt runs.
    if (signal.aborted) this.#host.committedLate(next)
    else signal.addEventListener('abort', () => this.#host.committedLate(next), { once: true })
    return { expires: next.expires }
  }

  #request(previous: PortalOAuthParams, signal: AbortSignal): Promise<unknown> {
    if (this.custom) return this.custom({ refreshToken: previous.refreshToken, signal })
    // Whatever a store row or an earlier answer put in the pair, the client secret goes only to a trusted server.
    this.#deps.trust.require("token refresh: the pair's serverEndpoint", previous.serverEndpoint)
    const bound = this.#bounds.open(this.#deps.lockTtlMs)
    return requestTokenRefresh({
      tokenUrl: tokenUrlFor(previous.serverEndpoint),
      refreshToken: previous.refreshToken,
      clientId: this.#secret.clientId,
      clientSecret: this.#secret.clientSecret,
      fetch: this.#deps.instance.fetch(),
      secrets: this.#deps.secrets,
      // Not the attempt's signal: a server slower than the refresh timeout may still rotate the pair, and its answer
      // must then be committed, not dropped. The request ends at the lock's TTL or when destroy() is done.
      signal: bound.signal,
    }).finally(bound.close)
  }

  #failure(error: unknown, signal: AbortSignal, trace: RefreshTrace): RefreshFailure {
    const failure = toError(error, this.#deps.secrets)
    const kind = classifyRefreshFailure(failure)
    traceRefreshError(trace, failure, this.#deps.secrets)
    // An attempt the machine abandoned already has its outcome; nothing to log twice.
    if (!signal.aborted) this.#deps.logger.error('token refresh failed', { error: failure, kind })
    return { kind, error: failure }
  }
}
