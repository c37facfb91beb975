import { setMaxListeners } from 'node:events'
import { type Actor, createActor, fromPromise, type InspectionEvent, type Observer, waitFor } from 'xstate'
import {
  type AccessTokenRefreshOutput,
  type AccessTokenSettings,
  type AccessTokenState,
  accessTokenMachine,
  type CallbackFailure,
  type RefreshFailure,
} from '../../machines/access-token.machine.js'
import { type AdminFlagState, adminFlagMachine } from '../../machines/admin-flag.machine.js'
import type { CallAction } from '../actions/call.js'
import {
  type RefreshTrace,
  traceRefreshEnd,
  traceRefreshError,
  traceRefreshStart,
} from '../diagnostics/channels.js'
import { AjaxError } from '../errors/ajax-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { toError } from '../errors/to-error.js'
import type { AuthStrategy, RequestAuth } from '../http/auth-strategy.js'
import type { FetchLike } from '../http/http-options.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { SecretRegistry } from '../logger/secret-registry.js'
import type { TokenStore } from '../store/token-store.js'
import type { ApiVersion } from '../types/api-version.js'
import type {
  AuthActions,
  AuthData,
  CallbackRefreshAuth,
  CustomRefreshAuth,
  PortalOAuthParams,
  PortalOAuthSecret,
} from '../types/auth.js'
import { invalidArgument } from '../validation/rules.js'
import { requestTokenRefresh } from './default-refresh.js'
import { tokenUrlFor, versionRoot } from './endpoints.js'
import { classifyRefreshFailure } from './refresh-failure.js'
import { applyRefreshResult } from './refresh-result.js'

/** An `inspect` observer as XState's `createActor` takes it (for example a Stately inspector's `inspect`). */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void)

/** What the auth manager needs from the instance that owns it. */
export interface AuthOAuthManagerDeps {
  /** Client clock, ms. */
  now: () => number
  /** The instance's redacting logger. */
  logger: LoggerInterface
  /** The instance's secrets; the current pair is replaced on every refresh. */
  secrets: SecretRegistry
  /** Where the refresh request finds the instance's fetch adapter (the instance's context). */
  http: { fetch(): FetchLike }
  /** Timeouts, retries and the eager margin of the token machine. */
  settings: AccessTokenSettings
  /** Where the pair and the refresh lock are shared with other instances; `null` to keep them to this one. */
  store: TokenStore | null
  /** Longest time this instance holds the portal's refresh lock in the store, ms. */
  lockTtlMs: number
  /** Passed to every actor the manager creates. */
  inspect: InspectOption | undefined
}

/** Where `initIsAdmin()` finds the v2 call it reads `profile` with: the client itself, whose actions are built on first use. */
export interface ProfileCallSource {
  /** The client's actions. */
  readonly actions: { readonly v2: { readonly call: CallAction } }
}

/** What a caller waited for: the refresh it joined, and how it ended. */
type WaitOutcome = { ok: true; callbackFailure: CallbackFailure | null } | { ok: false; error: Error }

const IS_ADMIN_NOT_INIT_MESSAGE = 'isAdmin not init. You need call B24OAuth::initIsAdmin().'

function ignore(): void {}

function isRefreshFailure(value: unknown): value is RefreshFailure {
  return value !== null && typeof value === 'object' && 'kind' in value && 'error' in value
}

type TokenSnapshot = ReturnType<Actor<typeof accessTokenMachine>['getSnapshot']>

function topState(snapshot: TokenSnapshot): AccessTokenState {
  const value = snapshot.value
  return (typeof value === 'string' ? value : Object.keys(value)[0]) as AccessTokenState
}

/**
 * The auth manager of `PortalOAuth`. It holds the token pair (never in machine context) and runs the access-token
 * machine, which owns everything else about the token: expiry, generation, the one refresh in flight, its retries
 * and how it ended. Callers wait on the machine, each within its own timeout and signal.
 */
export class AuthOAuthManager implements AuthActions, AuthStrategy {
  #params: PortalOAuthParams
  readonly #secret: PortalOAuthSecret
  readonly #deps: AuthOAuthManagerDeps
  /** Aborted by `destroy()`: waiting callers fail with `JSSDK_CLIENT_DESTROYED`; a refresh in flight finishes. */
  readonly #closing = new AbortController()
  /**
   * Aborted once `destroy()` has let the refresh in flight end: a request that outlived its attempt is dropped.
   * Created with the first refresh request (an idle instance holds none; see `#abandonSignal()`).
   */
  #abandon: AbortController | null = null
  /** Created on first use (a valid token needs no machine), or at once when an inspector is attached. */
  #tokenActor: Actor<typeof accessTokenMachine> | null = null
  #adminActor: Actor<typeof adminFlagMachine> | null = null
  #adminInFlight: Promise<boolean> | null = null
  #adminRequestId: string | undefined
  #profileCall: ProfileCallSource | null = null
  #callback: CallbackRefreshAuth | null = null
  #customRefresh: CustomRefreshAuth | null = null
  /** The first look at the shared store (its newer pair wins over the constructor's); `null` until done once. */
  #storeSynced: Promise<void> | null = null
  #storeSyncDone = false
  /** A save of the pair back into a store that lost it, while one is under way. */
  #reseeding: Promise<void> | null = null
  /** Callbacks run for a pair that arrived after its attempt was abandoned; `destroy()` waits for them. */
  #latePersists: Set<Promise<void>> | null = null

  constructor(params: PortalOAuthParams, secret: PortalOAuthSecret, deps: AuthOAuthManagerDeps) {
    this.#params = params
    this.#secret = secret
    this.#deps = deps
    deps.secrets.pin(secret.clientSecret)
    deps.secrets.pin(params.applicationToken)
    deps.secrets.setCurrentPair(params.accessToken, params.refreshToken)
    // An inspector sees the machine from the start; without one, an idle instance holds no actor.
    if (deps.inspect) this.#token()
  }

  // ---- AuthActions ------------------------------------------------------------------------------------------

  getAuthData(): AuthData | false {
    const now = this.#deps.now()
    this.#tick(now)
    const state = this.#state()
    if (state === 'dead') return false
    const alive = !this.#closing.signal.aborted
    if (
      alive &&
      state !== 'refreshing' &&
      this.#expires() * 1000 - this.#deps.settings.eagerRefreshMs <= now
    ) {
      // Starts the automatic refresh in the background; its failure is logged, never an unhandled rejection.
      this.#token().send({ type: 'authData.requested', now })
    }
    return this.#expires() * 1000 <= now ? false : this.#authData()
  }

  async refreshAuth(): Promise<AuthData> {
    this.#assertAlive()
    if (this.#deps.store && !this.#storeSyncDone) await this.#syncFromStore()
    await this.#reviveFromStore()
    const dead = this.#deadError()
    if (dead) throw dead
    const before = this.#token().getSnapshot().context
    if (this.#state() !== 'refreshing') this.#token().send({ type: 'refresh.requested' })
    const outcome = await this.#awaitRefresh(before, undefined, Number.POSITIVE_INFINITY)
    if (!outcome.ok) throw outcome.error
    if (outcome.callbackFailure) throw this.#callbackError(outcome.callbackFailure)
    return this.#authData()
  }

  getUniq(prefix: string): string {
    return `${prefix}_${this.#params.memberId}`
  }

  get isAdmin(): boolean {
    const value = this.#adminActor?.getSnapshot().context.isAdmin ?? null
    if (value === null) {
      throw new SdkError({ code: SdkErrorCode.IsAdminNotInit, message: IS_ADMIN_NOT_INIT_MESSAGE })
    }
    return value
  }

  // ---- State views ------------------------------------------------------------------------------------------

  /** The access-token machine's current state: `valid`, `expired`, `refreshing` or `dead`. */
  get tokenState(): AccessTokenState {
    // Time passes without events; tell the machine what the clock says before answering.
    this.#tick(this.#deps.now())
    return this.#state()
  }

  /** The admin-flag machine's current state. */
  get adminState(): AdminFlagState {
    return (this.#adminActor?.getSnapshot().value ?? 'notInitialised') as AdminFlagState
  }

  /** The running access-token actor, for subscribing to its snapshots. */
  get tokenActor(): Actor<typeof accessTokenMachine> {
    return this.#token()
  }

  /** The admin-flag actor (created on first use). */
  get adminActor(): Actor<typeof adminFlagMachine> {
    return this.#admin()
  }

  /** A copy of the current parameters, in constructor shape. */
  getParams(): PortalOAuthParams {
    return { ...this.#params }
  }

  /** Application credentials' `client_id`. */
  get clientId(): string {
    return this.#secret.clientId
  }

  // ---- Registration -----------------------------------------------------------------------------------------

  /** Registers the callback run (and awaited, within the callback timeout) after every successful refresh. */
  setCallbackRefreshAuth(callback: CallbackRefreshAuth): void {
    if (typeof callback !== 'function') {
      throw invalidArgument('setCallbackRefreshAuth: callback', 'must be a function')
    }
    this.#callback = callback
  }

  /** Unregisters the refresh callback. */
  removeCallbackRefreshAuth(): void {
    this.#callback = null
  }

  /** Registers a function that obtains new tokens instead of the default OAuth request. */
  setCustomRefreshAuth(refresh: CustomRefreshAuth): void {
    if (typeof refresh !== 'function') {
      throw invalidArgument('setCustomRefreshAuth: refresh', 'must be a function')
    }
    this.#customRefresh = refresh
  }

  /** Unregisters the custom refresh function. */
  removeCustomRefreshAuth(): void {
    this.#customRefresh = null
  }

  /**
   * Replaces the pair held with `params` (already validated). It is used from now on, also after the pair died; a
   * refresh of the replaced pair still in flight is abandoned.
   */
  replacePair(params: PortalOAuthParams): void {
    this.#assertAlive()
    this.#params = params
    this.#deps.secrets.pin(params.applicationToken)
    this.#deps.secrets.setCurrentPair(params.accessToken, params.refreshToken)
    if (this.#tokenActor) this.#tokenActor.send({ type: 'pair.replaced', expires: params.expires })
    this.#deps.logger.info('token pair replaced', { expires: params.expires })
    this.#deps.store
      ?.save(params)
      .catch((error: unknown) => this.#storeFailed('saving the replaced pair', error))
  }

  /**
   * Where `initIsAdmin()` finds the v2 call it reads `profile` with: the client's own, looked up when first needed
   * (the actions are built on first use). It sends through this manager again (as its {@link AuthStrategy}), which
   * is why it cannot be given at construction.
   */
  useProfileCall(portal: ProfileCallSource): void {
    this.#profileCall = portal
  }

  /** Calls `profile` once (concurrent callers share the call) and caches the admin flag. */
  async initIsAdmin(requestId?: string): Promise<void> {
    this.#assertAlive()
    const actor = this.#admin()
    if (actor.getSnapshot().value !== 'loading') {
      this.#adminRequestId = requestId
      actor.send({ type: 'init.requested' })
    }
    if (!this.#adminInFlight)
      throw new SdkError({ code: SdkErrorCode.Internal, message: 'initIsAdmin: no profile call started' })
    await this.#adminInFlight
  }

  // ---- AuthStrategy (for the transports) --------------------------------------------------------------------

  async prepare(apiVersion: ApiVersion, signal?: AbortSignal, waitMs?: number): Promise<RequestAuth> {
    this.#assertAlive()
    const { store } = this.#deps
    if (store && !this.#storeSyncDone) await this.#syncFromStore()
    // Stryker disable next-line ConditionalExpression: without a store it returns at once; the check saves a promise per call
    if (store) await this.#reviveFromStore()
    const now = this.#deps.now()
    let snapshot = this.#tokenActor?.getSnapshot()
    if (snapshot && topState(snapshot) === 'dead') throw this.#deadError()
    const expires = snapshot?.context.expires ?? this.#params.expires
    if (
      (!snapshot || topState(snapshot) !== 'refreshing') &&
      expires * 1000 - this.#deps.settings.eagerRefreshMs <= now
    ) {
      // Within the eager margin the refresh starts in the background; past expiry the call waits for it.
      const actor = this.#token()
      actor.send({ type: 'clock.tick', now })
      actor.send({ type: 'authData.requested', now })
      snapshot = actor.getSnapshot()
    }
    if (snapshot && this.#mustWait(snapshot, now)) {
      const outcome = await this.#awaitRefresh(snapshot.context, signal, waitMs)
      if (!outcome.ok) throw outcome.error
    }
    return {
      baseUrl: versionRoot(this.#params.clientEndpoint, apiVersion),
      token: this.#params.accessToken,
      generation: this.#generation(),
    }
  }

  currentToken(): string {
    return this.#params.accessToken
  }

  currentGeneration(): number {
    return this.#generation()
  }

  async rejected(auth: RequestAuth, code: string, signal?: AbortSignal, waitMs?: number): Promise<boolean> {
    if (auth.generation < this.#generation()) return true
    const dead = this.#deadError()
    if (dead) throw dead
    this.#deps.logger.debug(`portal rejected the access token (${code})`, { generation: auth.generation })
    const actor = this.#token()
    const before = actor.getSnapshot().context
    actor.send({ type: 'token.rejected', generation: auth.generation })
    if (this.#state() !== 'refreshing') return false
    const outcome = await this.#awaitRefresh(before, signal, waitMs)
    if (!outcome.ok) throw outcome.error
    return true
  }

  /**
   * Closes the manager. Waiting callers fail with `JSSDK_CLIENT_DESTROYED` at once; a refresh in flight is not
   * aborted: it finishes (bounded by the refresh and callback timeouts), its pair is committed and the callback runs,
   * then the actors stop.
   */
  async destroy(): Promise<void> {
    if (this.#closing.signal.aborted) return
    // The words of every later call (see PortalContext.assertAlive), for the callers that were waiting.
    const message = 'PortalOAuth was destroyed; create a new instance to make calls'
    this.#closing.abort(new SdkError({ code: SdkErrorCode.Destroyed, message }))
    const actor = this.#tokenActor
    if (actor) {
      actor.send({ type: 'client.closing' })
      if (topState(actor.getSnapshot()) === 'refreshing') {
        await waitFor(actor, (snapshot) => topState(snapshot) !== 'refreshing').catch(ignore)
      }
    }
    // Created here when no refresh asked for it yet, so that a later request starts aborted.
    this.#abandon ??= new AbortController()
    this.#abandon.abort()
    await Promise.all(this.#latePersists ?? [])
    actor?.stop()
    this.#adminActor?.stop()
  }

  // ---- Internals --------------------------------------------------------------------------------------------

  /** The signal that ends refresh requests once `destroy()` is done (already aborted after it). */
  #abandonSignal(): AbortSignal {
    this.#abandon ??= new AbortController()
    return this.#abandon.signal
  }

  /** The machine's state as it stands, without telling it the time. */
  #state(): AccessTokenState {
    // Before the actor exists the machine would still be in its initial state.
    return this.#tokenActor ? topState(this.#tokenActor.getSnapshot()) : 'valid'
  }

  #expires(): number {
    return this.#tokenActor?.getSnapshot().context.expires ?? this.#params.expires
  }

  #generation(): number {
    return this.#tokenActor?.getSnapshot().context.generation ?? 0
  }

  /** A caller waits for the refresh in flight unless it is a background refresh of a token still usable. */
  #mustWait(snapshot: TokenSnapshot, now: number): boolean {
    if (topState(snapshot) !== 'refreshing') return false
    if (snapshot.matches({ refreshing: 'persisting' })) return true
    return !snapshot.context.background || snapshot.context.expires * 1000 <= now
  }

  /** The error that killed the pair, when the machine is in `dead`. */
  #deadError(): Error | undefined {
    const snapshot = this.#tokenActor?.getSnapshot()
    if (!snapshot || topState(snapshot) !== 'dead') return undefined
    return this.#failureError(snapshot.context.lastFailure)
  }

  /**
   * Waits, within `waitMs` and `signal`, until the refresh in flight is over, and tells how it ended compared with
   * the counters in `before` (taken when the caller joined it).
   */
  async #awaitRefresh(
    before: { refreshCount: number; failureCount: number },
    signal: AbortSignal | undefined,
    waitMs: number | undefined,
  ): Promise<WaitOutcome> {
    const actor = this.#token()
    // Every call waiting for a refresh listens to the closing signal: hundreds at once are normal, not a leak.
    setMaxListeners(0, this.#closing.signal)
    const stop = signal ? AbortSignal.any([signal, this.#closing.signal]) : this.#closing.signal
    let snapshot: TokenSnapshot
    try {
      snapshot = await waitFor(actor, (current) => topState(current) !== 'refreshing', {
        timeout: waitMs ?? Number.POSITIVE_INFINITY,
        signal: stop,
      })
    } catch (error) {
      if (this.#closing.signal.aborted) throw this.#closing.signal.reason
      if (signal?.aborted) throw signal.reason
      throw new AjaxError({
        code: SdkErrorCode.RequestTimeout,
        message: `token refresh: no new access token within ${waitMs} ms (the refresh goes on for other callers)`,
        request: { method: 'oauth/token' },
        cause: error,
      })
    }
    const { context } = snapshot
    if (topState(snapshot) === 'dead') return { ok: false, error: this.#failureError(context.lastFailure) }
    if (context.refreshCount > before.refreshCount)
      return { ok: true, callbackFailure: context.callbackFailure }
    if (context.failureCount > before.failureCount) {
      return { ok: false, error: this.#failureError(context.lastFailure) }
    }
    // The pair was replaced while the caller waited: go on with it.
    return { ok: true, callbackFailure: null }
  }

  #failureError(failure: RefreshFailure | null): Error {
    if (failure?.timedOut) {
      return new AjaxError({
        code: SdkErrorCode.RequestTimeout,
        message: `token refresh: no answer within ${this.#deps.settings.refreshTimeoutMs} ms`,
        request: { method: 'oauth/token' },
      })
    }
    if (failure?.error instanceof Error) return failure.error
    return new SdkError({ code: SdkErrorCode.Internal, message: 'token refresh failed without an error' })
  }

  #callbackError(failure: CallbackFailure): Error {
    if (failure.timedOut || !(failure.error instanceof Error)) {
      return new SdkError({
        code: SdkErrorCode.CallbackTimeout,
        message: `refresh callback did not settle within ${this.#deps.settings.callbackTimeoutMs} ms; the new token pair is in use but may not be persisted`,
      })
    }
    return failure.error
  }

  /** The access-token actor, created and started on first use. */
  #token(): Actor<typeof accessTokenMachine> {
    if (this.#tokenActor) return this.#tokenActor
    const machine = accessTokenMachine.provide({
      actors: {
        refreshTokens: fromPromise<AccessTokenRefreshOutput>(({ signal }) => this.#refreshAttempt(signal)),
        persistPair: fromPromise<void>(() => this.#persist()),
      },
      actions: {
        reportRefreshTimeout: () =>
          this.#deps.logger.error(
            `token refresh: no answer within ${this.#deps.settings.refreshTimeoutMs} ms; the attempt is abandoned`,
          ),
        reportCallbackTimeout: () =>
          this.#deps.logger.error(
            `refresh callback did not settle within ${this.#deps.settings.callbackTimeoutMs} ms; the new token pair is kept in memory but may not be persisted`,
          ),
      },
    })
    const actor = createActor(machine, {
      input: { expires: this.#params.expires, settings: this.#deps.settings },
      ...(this.#deps.inspect ? { inspect: this.#deps.inspect } : {}),
    })
    this.#tokenActor = actor
    actor.start()
    return actor
  }

  /** Tells the machine the time; a tick that cannot change anything needs no actor. */
  #tick(now: number): void {
    // A destroyed client's actor is stopped: it answers with its last state and takes no more events.
    if (this.#closing.signal.aborted) return
    if (this.#tokenActor || this.#params.expires * 1000 <= now)
      this.#token().send({ type: 'clock.tick', now })
  }

  #assertAlive(): void {
    if (this.#closing.signal.aborted) throw this.#closing.signal.reason
  }

  #authData(): AuthData {
    const params = this.#params
    return {
      access_token: params.accessToken,
      refresh_token: params.refreshToken,
      expires: params.expires,
      expires_in: params.expiresIn,
      domain: params.domain,
      member_id: params.memberId,
    }
  }

  /**
   * One refresh attempt, the body of the `refreshTokens` actor. The new pair is committed the moment it arrives,
   * before the machine hears of it, so that no later failure (an odd field, the attempt's timeout) can lose it.
   * Rejects with a {@link RefreshFailure} holding an error free of secrets.
   */
  async #refreshAttempt(signal: AbortSignal): Promise<AccessTokenRefreshOutput> {
    const store = this.#deps.store
    return store ? this.#refreshShared(store, signal) : this.#refreshOwn(signal)
  }

  /**
   * A refresh attempt on a shared store: at most one refresh request per rotation across every instance on the
   * store. The instance that takes the portal's lock re-reads the store (another one may have refreshed meanwhile),
   * refreshes, and saves the new pair before releasing the lock; the others wait for the store to change and take
   * that pair, which is not a refresh of their own (no request, no callback). A holder that dies frees the lock at
   * its TTL. The attempt stays bounded by the machine's refresh timeout (`signal`).
   */
  async #refreshShared(store: TokenStore, signal: AbortSignal): Promise<AccessTokenRefreshOutput> {
    const previous = this.#params
    const { memberId } = previous
    let owner: string | null = null
    try {
      for (;;) {
        owner = await store.lock(memberId, this.#deps.lockTtlMs)
        if (owner) break
        await store.changed(memberId, this.#deps.lockTtlMs, signal)
        if (signal.aborted) {
          throw new SdkError({
            code: SdkErrorCode.RefreshLockBusy,
            message: 'token refresh: another instance held the refresh lock for the whole attempt',
          })
        }
        const adopted = await this.#adoptNewer(store, previous)
        if (adopted) return adopted
      }
      const adopted = await this.#adoptNewer(store, previous)
      if (adopted) return adopted
      let output: AccessTokenRefreshOutput
      try {
        output = await this.#refreshOwn(signal)
      } catch (failure) {
        // With a rotating server a refusal may mean another holder refreshed after our lock expired: look first.
        const newer =
          isRefreshFailure(failure) && failure.kind === 'dead'
            ? await this.#adoptNewer(store, previous)
            : null
        if (newer) return newer
        throw failure
      }
      // The new pair reaches the store before the lock is released, so the next holder never spends the old one.
      await store
        .save(this.#params)
        .catch((error: unknown) => this.#storeFailed('saving the new pair', error))
      return output
    } catch (error) {
      if (isRefreshFailure(error)) throw error
      // The store failed (or stayed locked past this attempt): another attempt, after a backoff, may get through.
      return Promise.reject({
        kind: 'transient',
        error: this.#asRefreshFailure(error),
      } satisfies RefreshFailure)
    } finally {
      if (owner)
        await store.unlock(memberId, owner).catch((error: unknown) => this.#storeFailed('unlocking', error))
    }
  }

  /**
   * The store holds a pair expiring at `expires` (`null`: none, it lost its data). A newer pair held here goes back
   * into it, so that instances holding an older one find it. Newest wins in the store, so an instance holding an
   * older pair never pushes back over a newer one.
   */
  storeHolds(expires: number | null): void {
    const store = this.#deps.store
    if (!store || this.#reseeding || this.#closing.signal.aborted) return
    if (expires !== null && expires >= this.#params.expires) return
    this.#reseeding = store
      .save(this.#params)
      .then(
        () =>
          this.#deps.logger.warn('token store held an older pair or none; the pair held here was put back'),
        (error: unknown) => this.#storeFailed('putting the pair back', error),
      )
      .finally(() => {
        this.#reseeding = null
      })
  }

  /**
   * A dead pair on a shared store: another instance may hold a newer one (it refreshed, or put its pair back into a
   * store that lost its data). Each call looks there first, and takes it when there is one; nothing else is sent.
   */
  async #reviveFromStore(): Promise<void> {
    const store = this.#deps.store
    if (!store || this.#state() !== 'dead') return
    const held = this.#params
    const revived = await this.#adoptNewer(store, held).catch(() => null)
    if (revived && this.#state() === 'dead')
      this.#tokenActor?.send({ type: 'pair.replaced', expires: revived.expires })
  }

  /** Takes the store's pair when another instance refreshed since `previous`; `null` when it holds nothing newer. */
  async #adoptNewer(
    store: TokenStore,
    previous: PortalOAuthParams,
  ): Promise<AccessTokenRefreshOutput | null> {
    const stored = await store.load(previous.memberId)
    if (!stored || stored.refreshToken === previous.refreshToken || stored.expires < previous.expires)
      return null
    if (this.#params !== previous) return null
    this.#takeFromStore(stored)
    return { expires: stored.expires, fromStore: true }
  }

  /** Uses a pair another instance put in the store: not a refresh, so no callback runs for it. */
  #takeFromStore(stored: PortalOAuthParams): void {
    this.#params = stored
    this.#deps.secrets.pin(stored.applicationToken)
    this.#deps.secrets.setCurrentPair(stored.accessToken, stored.refreshToken)
    this.#deps.logger.info('token pair taken from the store', { expires: stored.expires })
  }

  /** The first look at the store: a newer pair there wins; otherwise the store gets ours (also after it lost its data). */
  async #syncFromStore(): Promise<void> {
    const store = this.#deps.store
    if (!store) return
    this.#storeSynced ??= (async () => {
      const held = this.#params
      try {
        const stored = await store.load(held.memberId)
        // On equal expiry the store wins: refreshed pairs are written there, a constructor's pair may be stale.
        if (stored && stored.expires >= held.expires && stored.refreshToken !== held.refreshToken) {
          // A refresh or a replacement that started meanwhile decides; it consults the store itself.
          if (this.#params !== held || this.#state() === 'refreshing') return
          this.#takeFromStore(stored)
          this.#tokenActor?.send({ type: 'pair.replaced', expires: stored.expires })
        } else {
          await store.save(held)
        }
        this.#storeSyncDone = true
      } catch (error) {
        this.#storeFailed('reading the pair', error)
        this.#storeSynced = null
      }
    })()
    await this.#storeSynced
  }

  #storeFailed(what: string, error: unknown): void {
    this.#deps.logger.error(`token store failed ${what}`, { error: this.#asRefreshFailure(error) })
  }

  /** One refresh attempt of this instance alone: the OAuth request (or the custom refresh), then the commit. */
  async #refreshOwn(signal: AbortSignal): Promise<AccessTokenRefreshOutput> {
    const trace = traceRefreshStart(this.#generation())
    const previous = this.#params
    let raw: unknown
    try {
      raw = this.#customRefresh
        ? await this.#customRefresh({ refreshToken: previous.refreshToken, signal })
        : await requestTokenRefresh({
            tokenUrl: tokenUrlFor(previous.serverEndpoint),
            refreshToken: previous.refreshToken,
            clientId: this.#secret.clientId,
            clientSecret: this.#secret.clientSecret,
            fetch: this.#deps.http.fetch(),
            // Not the attempt's signal: a server slower than the refresh timeout may still rotate the pair, and its
            // answer must then be committed, not dropped. The request ends at the lock's TTL or when destroy() is done.
            signal: AbortSignal.any([AbortSignal.timeout(this.#deps.lockTtlMs), this.#abandonSignal()]),
          })
    } catch (error) {
      throw this.#refreshFailure(error, signal, trace)
    }
    let applied: ReturnType<typeof applyRefreshResult>
    try {
      applied = applyRefreshResult(
        previous,
        raw as Parameters<typeof applyRefreshResult>[1],
        this.#deps.now(),
      )
    } catch (error) {
      throw this.#refreshFailure(error, signal, trace)
    }
    const next = applied.params
    if (this.#params !== previous) {
      // setAuthOptions() replaced the pair meanwhile; the new one wins.
      this.#deps.logger.warn('token refresh finished after the pair was replaced; its pair is not used')
      return { expires: this.#params.expires }
    }
    this.#params = next
    this.#deps.secrets.setCurrentPair(next.accessToken, next.refreshToken)
    if (applied.repaired.length > 0) {
      this.#deps.logger.warn(
        `token refresh answer had odd fields, repaired: ${applied.repaired.join(', ')}`,
        {
          fields: applied.repaired,
        },
      )
    }
    this.#deps.logger.info('token pair refreshed', {
      generation: this.#generation() + 1,
      expires: next.expires,
    })
    traceRefreshEnd(trace, this.#generation() + 1, next.expires)
    if (signal.aborted) {
      // The machine gave up on this attempt (timeout) before the answer came: the pair is the newest there is, so it
      // replaces the one the machine knows (abandoning a retry that would spend the old refresh token) and is persisted.
      this.#tokenActor?.send({ type: 'pair.replaced', expires: next.expires })
      this.#persistLate()
    }
    return { expires: next.expires }
  }

  #refreshFailure(error: unknown, signal: AbortSignal, trace: RefreshTrace): RefreshFailure {
    const failure = this.#asRefreshFailure(error)
    const kind = classifyRefreshFailure(failure)
    traceRefreshError(trace, failure, this.#deps.secrets)
    // An attempt the machine abandoned already has its outcome; nothing to log twice.
    if (!signal.aborted) this.#deps.logger.error('token refresh failed', { error: failure, kind })
    return { kind, error: failure }
  }

  /** A thrown value as callers get it (see {@link toError}). */
  #asRefreshFailure(value: unknown): Error {
    return toError(value, this.#deps.secrets)
  }

  /** Body of the `persistPair` actor: runs the refresh callback with the pair just committed. */
  async #persist(): Promise<void> {
    const callback = this.#callback
    if (!callback) return
    const params = this.#params
    try {
      await callback({ authData: this.#authData(), b24OAuthParams: { ...params } })
    } catch (error) {
      const failure = this.#asRefreshFailure(error)
      // The new pair stays in use in memory; the application learns of the failure from the log and refreshAuth().
      this.#deps.logger.error(
        'refresh callback failed; the new token pair is kept in memory but was not persisted',
        { error: failure },
      )
      throw failure
    }
  }

  #persistLate(): void {
    // Bounded like the machine's persisting state, so that destroy() waiting for it is bounded too.
    const timeout = new Promise<void>((resolve) =>
      setTimeout(resolve, this.#deps.settings.callbackTimeoutMs).unref(),
    )
    const run = Promise.race([this.#persist().catch(ignore), timeout])
    this.#latePersists ??= new Set()
    const pending = this.#latePersists
    pending.add(run)
    void run.finally(() => pending.delete(run))
  }

  /** `profile`'s `ADMIN` flag, read through the instance's v2 call (see {@link useProfileCall}). */
  async #loadIsAdmin(requestId: string | undefined): Promise<boolean> {
    if (!this.#profileCall)
      throw new SdkError({
        code: SdkErrorCode.Internal,
        message: 'initIsAdmin: no v2 call to read profile with',
      })
    const result = await this.#profileCall.actions.v2.call.make<{ ADMIN?: unknown }>({
      method: 'profile',
      ...(requestId === undefined ? {} : { requestId }),
    })
    const [error] = result.getErrors()
    if (error) throw error
    return result.getData()?.result?.ADMIN === true
  }

  #admin(): Actor<typeof adminFlagMachine> {
    if (this.#adminActor) return this.#adminActor
    const machine = adminFlagMachine.provide({
      actors: {
        loadIsAdmin: fromPromise<boolean>(() => {
          const run = this.#loadIsAdmin(this.#adminRequestId)
          this.#adminInFlight = run
          run.catch(ignore)
          return run
        }),
      },
    })
    this.#adminActor = createActor(machine, this.#deps.inspect ? { inspect: this.#deps.inspect } : {})
    this.#adminActor.start()
    return this.#adminActor
  }
}
