import { waitFor } from 'xstate'
import type { AccessTokenState } from '../../machines/access-token.types.js'
import type { AdminFlagState } from '../../machines/admin-flag.types.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { AuthStrategy, RequestAuth } from '../http/auth-strategy.js'
import type { TrustedOAuthServers } from '../trust/oauth-servers.js'
import type { ApiVersion } from '../types/api-version.js'
import type {
  AuthActions,
  AuthData,
  CallbackRefreshAuth,
  CustomRefreshAuth,
  PortalOAuthParams,
  PortalOAuthSecret,
  RefreshAuthPayload,
} from '../types/auth.js'
import { invalidArgument } from '../validation/rules.js'
import { AdminFlag } from './admin-flag.js'
import { authDataOf } from './auth-data.js'
import type { AuthOAuthManagerDeps } from './auth-oauth-deps.js'
import { versionRoot } from './endpoints.js'
import type { AdminActor, TokenActor } from './machine-actors.js'
import { OwnRefresh } from './own-refresh.js'
import type { ProfileCallSource } from './profile-call.js'
import { RefreshCallback } from './refresh-callback.js'
import { awaitRefresh, callbackError, deadError, mustWait } from './refresh-wait.js'
import { SharedPair } from './shared-pair.js'
import { TokenMachine, topState } from './token-machine.js'

function ignore(): void {}

/**
 * The auth manager of `PortalOAuth`. It holds the token pair (never in machine context) and the access-token
 * machine, which owns everything else about the token: expiry, generation, the one refresh in flight, its retries
 * and how it ended. Callers wait on the machine, each within its own timeout and signal. With a store, the
 * shared-store protocol (`SharedPair`) keeps the pair in step with other instances.
 */
export class AuthOAuthManager implements AuthActions, AuthStrategy {
  #params: PortalOAuthParams
  readonly #secret: PortalOAuthSecret
  readonly #deps: AuthOAuthManagerDeps
  readonly #machine: TokenMachine
  readonly #shared: SharedPair | null
  /** The admin flag and the refresh callback, created on first use (an idle instance holds neither). */
  #admin: AdminFlag | null = null
  #callback: RefreshCallback | null = null
  #profileCall: ProfileCallSource | null = null
  /** Aborted by `destroy()`: waiting callers fail with `JSSDK_CLIENT_DESTROYED`; a refresh in flight finishes. */
  readonly #closing = new AbortController()
  /** This instance's own refresh attempt (the OAuth request or the custom refresh, then the commit); made on first use. */
  #ownRefresh: OwnRefresh | null = null

  /** The portal of the pair given at construction (the shared bucket and the traces are keyed by it). */
  readonly memberId: string

  /** @internal Built by `PortalOAuth`. */
  constructor(params: PortalOAuthParams, secret: PortalOAuthSecret, deps: AuthOAuthManagerDeps) {
    this.#params = params
    this.memberId = params.memberId
    this.#secret = secret
    this.#deps = deps
    deps.secrets.pin(secret.clientSecret)
    deps.secrets.pin(params.applicationToken)
    deps.secrets.setCurrentPair(params.accessToken, params.refreshToken)
    const { store } = deps
    this.#shared = store
      ? new SharedPair(
          {
            pair: () => this.#params,
            generation: () => this.#generation(),
            state: () => this.#machine.state(),
            closed: () => this.#closing.signal.aborted,
            adopt: (stored, newGeneration) => this.#adopt(stored, newGeneration),
          },
          {
            store,
            lockTtlMs: deps.lockTtlMs,
            attemptMs: deps.settings.refreshTimeoutMs,
            logger: deps.logger,
            secrets: deps.secrets,
          },
        )
      : null
    const parts = {
      refresh: (signal: AbortSignal) =>
        this.#shared
          ? this.#shared.refresh(signal, (attempt) => this.#own().run(attempt))
          : this.#own().run(signal),
      persist: async () => this.#callback?.run(() => this.#payload()),
      logger: deps.logger,
      settings: deps.settings,
    }
    this.#machine = new TokenMachine(params.expires, deps.settings, parts, deps.inspect)
  }

  // ---- AuthActions ------------------------------------------------------------------------------------------

  getAuthData(): AuthData | false {
    const now = this.#deps.now()
    this.#tick(now)
    const { context } = this.#machine.snapshot()
    const state = this.#machine.state()
    if (state === 'dead') return false
    if (
      !this.#closing.signal.aborted &&
      state !== 'refreshing' &&
      context.expires * 1000 - this.#deps.settings.eagerRefreshMs <= now
    ) {
      // Starts the automatic refresh in the background; its failure is logged, never an unhandled rejection.
      this.#machine.send({ type: 'authData.requested', now })
    }
    return context.expires * 1000 <= now ? false : authDataOf(this.#params)
  }

  async refreshAuth(): Promise<AuthData> {
    this.#assertAlive()
    // The store's first look waits no longer than an attempt would: the refresh re-reads the store under its lock.
    await this.#shared?.beforeUse(this.#deps.settings.refreshTimeoutMs)
    const dead = deadError(this.#machine.snapshot())
    if (dead) throw dead
    const actor = this.#machine.actor()
    const before = actor.getSnapshot().context
    if (this.#machine.state() !== 'refreshing') actor.send({ type: 'refresh.requested' })
    const outcome = await awaitRefresh(
      actor,
      before,
      this.#closing.signal,
      undefined,
      Number.POSITIVE_INFINITY,
      this.#shared,
    )
    if (!outcome.ok) throw outcome.error
    if (outcome.callbackFailure) throw callbackError(outcome.callbackFailure, this.#deps.settings)
    return authDataOf(this.#params)
  }

  getUniq(prefix: string): string {
    return `${prefix}_${this.#params.memberId}`
  }

  get isAdmin(): boolean {
    return this.#adminFlag().isAdmin
  }

  // ---- State views ------------------------------------------------------------------------------------------

  /** The access-token machine's current state: `valid`, `expired`, `refreshing` or `dead`. */
  get tokenState(): AccessTokenState {
    // Time passes without events; tell the machine what the clock says before answering.
    this.#tick(this.#deps.now())
    return this.#machine.state()
  }

  /** The admin-flag machine's current state. */
  get adminState(): AdminFlagState {
    return this.#admin?.state ?? 'notInitialised'
  }

  /** The running access-token actor, for subscribing to its snapshots. */
  get tokenActor(): TokenActor {
    return this.#machine.keptActor()
  }

  /** The admin-flag actor (created on first use). */
  get adminActor(): AdminActor {
    return this.#adminFlag().actor()
  }

  /** A copy of the current parameters, in constructor shape. */
  getParams(): PortalOAuthParams {
    return { ...this.#params }
  }

  /** Application credentials' `client_id`. */
  get clientId(): string {
    return this.#secret.clientId
  }

  /** @internal The OAuth servers the client secret and refresh tokens may go to (`options.oauthServers`). */
  get trust(): TrustedOAuthServers {
    return this.#deps.trust
  }

  // ---- Registration -----------------------------------------------------------------------------------------

  /** Registers the callback run (and awaited, within the callback timeout) after every successful refresh. */
  setCallbackRefreshAuth(callback: CallbackRefreshAuth): void {
    this.#callback ??= new RefreshCallback(
      this.#deps.logger,
      this.#deps.secrets,
      this.#deps.settings.callbackTimeoutMs,
    )
    this.#callback.set(callback)
  }

  /** Unregisters the refresh callback. */
  removeCallbackRefreshAuth(): void {
    this.#callback?.remove()
  }

  /** Registers a function that obtains new tokens instead of the default OAuth request. */
  setCustomRefreshAuth(refresh: CustomRefreshAuth): void {
    if (typeof refresh !== 'function') {
      throw invalidArgument('setCustomRefreshAuth: refresh', 'must be a function')
    }
    this.#own().custom = refresh
  }

  /** Unregisters the custom refresh function. */
  removeCustomRefreshAuth(): void {
    if (this.#ownRefresh) this.#ownRefresh.custom = null
  }

  /** Replaces the pair held with `params` (validated), also after it died; a refresh of the old one is abandoned. */
  replacePair(params: PortalOAuthParams): void {
    this.#assertAlive()
    this.#usePair(params)
    this.#machine.send({ type: 'pair.replaced', expires: params.expires })
    this.#deps.logger.info('token pair replaced', { expires: params.expires })
    this.#shared?.saveReplaced(params)
  }

  /**
   * The store said which pair it holds (expiring at `expires`; `null`: none, it lost its data): a newer pair held
   * here goes back into it (see `SharedPair.putBackIfOlder`).
   */
  reseedStore(expires: number | null): void {
    this.#shared?.putBackIfOlder(expires)
  }

  /** @internal The pair held is the one the store holds (a fleet built the client from it): no first look is needed. */
  pairIsStored(): void {
    this.#shared?.markSynced()
  }

  /**
   * @internal Where `initIsAdmin()` finds the v2 call for `profile`: the client's own, given after construction (the
   * actions are built on first use, and send through this manager again as its {@link AuthStrategy}).
   */
  useProfileCall(portal: ProfileCallSource): void {
    this.#profileCall = portal
    this.#admin?.useProfileCall(portal)
  }

  /** Calls `profile` once (concurrent callers share the call) and caches the admin flag. */
  async initIsAdmin(requestId?: string): Promise<void> {
    this.#assertAlive()
    await this.#adminFlag().init(requestId)
  }

  // ---- AuthStrategy (for the transports) --------------------------------------------------------------------

  /** The token at hand, at once when nothing has to be waited for (no store to read, no refresh to wait out). */
  prepare(apiVersion: ApiVersion, signal?: AbortSignal, waitMs?: number): RequestAuth | Promise<RequestAuth> {
    this.#assertAlive()
    // On a shared store the pair held is used at once too, once nothing is to be read first (an async frame less).
    return this.#shared?.needsLook
      ? this.#prepareShared(this.#shared, apiVersion, signal, waitMs)
      : this.#prepareHeld(apiVersion, signal, waitMs)
  }

  async #prepareShared(
    shared: SharedPair,
    apiVersion: ApiVersion,
    signal: AbortSignal | undefined,
    waitMs: number | undefined,
  ): Promise<RequestAuth> {
    // The store's reads count against the call's wait, which the refresh wait gets the rest of. A store that does not
    // answer gets half of it: the other half is left for the slot and the request, with the pair held.
    const started = performance.now()
    await shared.beforeUse(waitMs === undefined ? undefined : waitMs / 2)
    const left = waitMs === undefined ? undefined : Math.max(0, waitMs - (performance.now() - started))
    return this.#prepareHeld(apiVersion, signal, left)
  }

  /** The pair held, once the refresh a call must wait for (past expiry, or being persisted) has ended. */
  #prepareHeld(
    apiVersion: ApiVersion,
    signal?: AbortSignal,
    waitMs?: number,
  ): RequestAuth | Promise<RequestAuth> {
    const now = this.#deps.now()
    let snapshot = this.#machine.snapshot()
    const state = topState(snapshot)
    if (state === 'dead') throw deadError(snapshot)
    if (
      state !== 'refreshing' &&
      snapshot.context.expires * 1000 - this.#deps.settings.eagerRefreshMs <= now
    ) {
      // Within the eager margin the refresh starts in the background; past expiry the call waits for it.
      this.#machine.send({ type: 'clock.tick', now })
      this.#machine.send({ type: 'authData.requested', now })
      snapshot = this.#machine.snapshot()
    }
    if (!mustWait(snapshot, now)) return this.#requestAuth(apiVersion)
    return awaitRefresh(
      this.#machine.actor(),
      snapshot.context,
      this.#closing.signal,
      signal,
      waitMs,
      this.#shared,
    ).then((outcome) => {
      if (!outcome.ok) throw outcome.error
      return this.#requestAuth(apiVersion)
    })
  }

  #requestAuth(apiVersion: ApiVersion): RequestAuth {
    const { clientEndpoint, accessToken } = this.#params
    return {
      baseUrl: versionRoot(clientEndpoint, apiVersion),
      token: accessToken,
      generation: this.#generation(),
    }
  }

  currentToken(): string {
    return this.#params.accessToken
  }

  /** The current pair's `scope` (comma-separated; a refresh may change it). */
  get scope(): string {
    return this.#params.scope
  }

  currentGeneration(): number {
    return this.#generation()
  }

  async rejected(auth: RequestAuth, code: string, signal?: AbortSignal, waitMs?: number): Promise<boolean> {
    if (auth.generation < this.#generation()) return true
    const dead = deadError(this.#machine.snapshot())
    if (dead) throw dead
    this.#deps.logger.debug(`portal rejected the access token (${code})`, { generation: auth.generation })
    const actor = this.#machine.actor()
    const before = actor.getSnapshot().context
    actor.send({ type: 'token.rejected', generation: auth.generation })
    if (this.#machine.state() !== 'refreshing') return false
    const outcome = await awaitRefresh(actor, before, this.#closing.signal, signal, waitMs, this.#shared)
    if (!outcome.ok) throw outcome.error
    return true
  }

  /**
   * Closes the manager. Waiting callers fail with `JSSDK_CLIENT_DESTROYED` at once; a refresh in flight is not
   * aborted: it finishes (bounded by the refresh and callback timeouts), its pair is committed and the callback runs,
   * a pair a shared store did not take is saved once more (within the refresh timeout), then the actors stop. On a
   * shared store, a refresh request still at the OAuth server after its attempt timed out is waited for too (within
   * the lock's TTL): it holds the lock and may spend the refresh token.
   */
  async destroy(): Promise<void> {
    if (this.#closing.signal.aborted) return
    // The words of every later call (see PortalContext.assertAlive), for the callers that were waiting.
    const message = 'PortalOAuth was destroyed; create a new instance to make calls'
    this.#closing.abort(new SdkError({ code: SdkErrorCode.Destroyed, message }))
    if (this.#machine.started) {
      const actor = this.#machine.actor()
      actor.send({ type: 'client.closing' })
      if (topState(actor.getSnapshot()) === 'refreshing') {
        await waitFor(actor, (snapshot) => topState(snapshot) !== 'refreshing').catch(ignore)
      }
    }
    // On a shared store, a refresh request the machine gave up on still holds the lock and may still spend the refresh
    // token: its answer is waited for (within the lock's TTL), not cut off (see SharedPair.settled).
    await this.#shared?.settled()
    this.#ownRefresh?.abandon()
    await this.#callback?.settled()
    // A refreshed pair the store did not take yet gets one last save, or another instance would spend the old one.
    await this.#shared?.close(this.#deps.settings.refreshTimeoutMs)
    this.#machine.stop()
    this.#admin?.stop()
  }

  /** The own refresh, made the first time it is needed (an idle instance holds none). */
  #own(): OwnRefresh {
    if (this.#ownRefresh) return this.#ownRefresh
    const { secrets } = this.#deps
    const own = new OwnRefresh(
      {
        pair: () => this.#params,
        generation: () => this.#generation(),
        commit: (next) => {
          this.#params = next
          secrets.setCurrentPair(next.accessToken, next.refreshToken)
        },
        committedLate: (next) => {
          // setAuthOptions() replaced the pair (and told the machine): the committed one is no longer news.
          if (this.#params.refreshToken !== next.refreshToken) return
          this.#machine.send({ type: 'pair.replaced', expires: next.expires })
          // Stryker disable next-line OptionalChaining: without a callback the TypeError would reject an attempt the machine has already abandoned; nothing observes it
          this.#callback?.runLate(() => this.#payload())
        },
      },
      this.#secret,
      this.#deps,
    )
    // Made after destroy(): its requests are abandoned from the start, as they would have been.
    if (this.#closing.signal.aborted) own.abandon()
    this.#ownRefresh = own
    return own
  }

  #generation(): number {
    return this.#machine.snapshot().context.generation
  }

  /** Tells the machine the time, when it can change something: the token is not yet known expired. */
  #tick(now: number): void {
    // A destroyed client's actor is stopped: it answers with its last state and takes no more events.
    if (this.#closing.signal.aborted) return
    const snapshot = this.#machine.snapshot()
    if (this.#machine.started || snapshot.context.expires * 1000 <= now)
      this.#machine.send({ type: 'clock.tick', now })
  }

  #assertAlive(): void {
    if (this.#closing.signal.aborted) throw this.#closing.signal.reason
  }

  /** Makes `params` the pair in use: its tokens become the current secrets. */
  #usePair(params: PortalOAuthParams): void {
    this.#params = params
    this.#deps.secrets.pin(params.applicationToken)
    this.#deps.secrets.setCurrentPair(params.accessToken, params.refreshToken)
  }

  /** Uses a pair another instance put in the store: not a refresh, so no callback runs for it. */
  #adopt(stored: PortalOAuthParams, newGeneration: boolean): void {
    this.#usePair(stored)
    this.#deps.logger.info('token pair taken from the store', { expires: stored.expires })
    // Its refresh will be refused (OwnRefresh asks the same list): say so now, while the pair still works.
    if (!this.#deps.trust.has(stored.serverEndpoint))
      this.#deps.logger.error(
        `the store's pair names an OAuth server outside options.oauthServers (${new URL(stored.serverEndpoint).origin}); its refresh will be refused`,
      )
    if (newGeneration) this.#machine.send({ type: 'pair.replaced', expires: stored.expires })
  }

  #adminFlag(): AdminFlag {
    if (this.#admin) return this.#admin
    this.#admin = new AdminFlag(this.#deps.inspect)
    if (this.#profileCall) this.#admin.useProfileCall(this.#profileCall)
    return this.#admin
  }

  /** What the refresh callback gets: the pair just committed. */
  #payload(): RefreshAuthPayload {
    return { authData: authDataOf(this.#params), b24OAuthParams: { ...this.#params } }
  }
}
