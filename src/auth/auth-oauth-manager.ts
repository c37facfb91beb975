import { type Actor, createActor, fromPromise, type InspectionEvent, type Observer } from 'xstate'
import {
  type AccessTokenRefreshOutput,
  type AccessTokenState,
  accessTokenMachine,
} from '../../machines/access-token.machine.js'
import { type AdminFlagState, adminFlagMachine } from '../../machines/admin-flag.machine.js'
import { raceAbort } from '../core/abortable-sleep.js'
import { traceRefreshEnd, traceRefreshError, traceRefreshStart } from '../diagnostics/channels.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { AuthStrategy, RequestAuth } from '../http/auth-strategy.js'
import type { FetchLike } from '../http/http-options.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { SecretRegistry } from '../logger/secret-registry.js'
import type { ApiVersion } from '../types/api-version.js'
import type {
  AuthActions,
  AuthData,
  CallbackRefreshAuth,
  CustomRefreshAuth,
  PortalOAuthParams,
  PortalOAuthSecret,
} from '../types/auth.js'
import { requestTokenRefresh } from './default-refresh.js'
import { tokenUrlFor, versionRoot } from './endpoints.js'
import { applyRefreshResult } from './refresh-result.js'

/** An `inspect` observer as XState's `createActor` takes it (for example a Stately inspector's `inspect`). */
export type InspectOption = Observer<InspectionEvent> | ((event: InspectionEvent) => void)

/** What the auth manager needs from the instance that owns it. */
export interface AuthOAuthManagerDeps {
  /** Client clock, ms. */
  now: () => number
  /** The instance's redacting logger. */
  logger: LoggerInterface
  /** The instance's secrets; new tokens are added on every refresh. */
  secrets: SecretRegistry
  /** The fetch-compatible adapter for the default refresh request. */
  fetch: () => FetchLike
  /** Timeout of the refresh request, ms. */
  timeout: number
  /** Passed to every actor the manager creates. */
  inspect: InspectOption | undefined
  /** Calls `profile` and resolves to its `ADMIN` flag. */
  loadIsAdmin: (requestId: string | undefined) => Promise<boolean>
}

/** The outcome of one refresh as callers waiting on it see it. */
interface RefreshOutcome extends AccessTokenRefreshOutput {
  /** What the refresh callback threw, if it threw. */
  callbackError?: unknown
}

const IS_ADMIN_NOT_INIT_MESSAGE = 'isAdmin not init. You need call B24OAuth::initIsAdmin().'

function ignore(): void {}

/** A thrown value as the spec wants it rethrown: `Error`s unchanged, anything else wrapped as `Strange error: …`. */
function asRefreshFailure(value: unknown, secrets: SecretRegistry): Error {
  if (value instanceof Error) return value
  let text: string
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value)
  } catch {
    text = String(value)
  }
  // The message is ours, so no token may show in it; the raw value stays available as `cause`.
  return new Error(`Strange error: ${secrets.redactText(text)}`, { cause: value })
}

/**
 * The auth manager of `PortalOAuth` (spec 2.6). It holds the token pair (never in machine context), runs the
 * access-token and admin-flag machines, performs the one refresh in flight per instance, awaits the refresh
 * callback, and gives transports a usable token.
 */
export class AuthOAuthManager implements AuthActions, AuthStrategy {
  #params: PortalOAuthParams
  readonly #secret: PortalOAuthSecret
  readonly #deps: AuthOAuthManagerDeps
  readonly #abort = new AbortController()
  /** Created on first use (a valid token needs no machine), or at once when an inspector is attached. */
  #tokenActor: Actor<typeof accessTokenMachine> | null = null
  #adminActor: Actor<typeof adminFlagMachine> | null = null
  #generation = 0
  #refreshInFlight: Promise<RefreshOutcome> | null = null
  #adminInFlight: Promise<boolean> | null = null
  #adminRequestId: string | undefined
  #callback: CallbackRefreshAuth | null = null
  #customRefresh: CustomRefreshAuth | null = null

  constructor(params: PortalOAuthParams, secret: PortalOAuthSecret, deps: AuthOAuthManagerDeps) {
    this.#params = params
    this.#secret = secret
    this.#deps = deps
    for (const value of [
      params.accessToken,
      params.refreshToken,
      params.applicationToken,
      secret.clientSecret,
    ]) {
      deps.secrets.add(value)
    }
    // An inspector sees the machine from the start; without one, an idle instance holds no actor.
    if (deps.inspect) this.#token()
  }

  // ---- AuthActions (spec 2.6) -------------------------------------------------------------------------------

  getAuthData(): AuthData | false {
    const now = this.#deps.now()
    this.#tick(now)
    if (this.#params.expires * 1000 <= now) {
      // Starts the automatic refresh in the background; its failure is logged, never an unhandled rejection.
      this.#token().send({ type: 'authData.requested', now })
      return false
    }
    return this.#authData()
  }

  async refreshAuth(): Promise<AuthData> {
    this.#assertAlive()
    if (this.#state() !== 'refreshing') this.#token().send({ type: 'refresh.requested' })
    const outcome = await this.#currentRefresh()
    if (outcome.callbackError !== undefined) throw outcome.callbackError
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

  /** The access-token machine's current state: `valid`, `expired` or `refreshing`. */
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

  // ---- Registration (spec 2.7) ------------------------------------------------------------------------------

  /** Registers the callback run (and awaited) after every successful refresh. */
  setCallbackRefreshAuth(callback: CallbackRefreshAuth): void {
    if (typeof callback !== 'function') {
      throw new SdkError({
        code: SdkErrorCode.InvalidArgument,
        message: 'setCallbackRefreshAuth: callback must be a function',
      })
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
      throw new SdkError({
        code: SdkErrorCode.InvalidArgument,
        message: 'setCustomRefreshAuth: refresh must be a function',
      })
    }
    this.#customRefresh = refresh
  }

  /** Unregisters the custom refresh function. */
  removeCustomRefreshAuth(): void {
    this.#customRefresh = null
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
      throw new SdkError({ code: 'JSSDK_INTERNAL', message: 'initIsAdmin: no profile call started' })
    await this.#adminInFlight
  }

  // ---- AuthStrategy (for the transports) --------------------------------------------------------------------

  async prepare(apiVersion: ApiVersion, signal?: AbortSignal): Promise<RequestAuth> {
    if (this.#state() !== 'refreshing') {
      const now = this.#deps.now()
      if (this.#params.expires * 1000 <= now) {
        // Refresh before sending rather than spend a request on a 401.
        const actor = this.#token()
        actor.send({ type: 'clock.tick', now })
        actor.send({ type: 'authData.requested', now })
      }
    }
    if (this.#state() === 'refreshing') await raceAbort(this.#currentRefresh(), signal)
    return {
      baseUrl: versionRoot(this.#params.clientEndpoint, apiVersion),
      token: this.#params.accessToken,
      generation: this.#generation,
    }
  }

  async rejected(auth: RequestAuth, code: string, signal?: AbortSignal): Promise<boolean> {
    if (auth.generation < this.#generation) return true
    this.#deps.logger.debug(`portal rejected the access token (${code})`, { generation: auth.generation })
    this.#token().send({ type: 'token.rejected', generation: auth.generation })
    if (this.#state() !== 'refreshing') return false
    await raceAbort(this.#currentRefresh(), signal)
    return true
  }

  /** Stops the actors and aborts a refresh in flight. */
  destroy(): void {
    this.#abort.abort(new SdkError({ code: SdkErrorCode.Destroyed, message: 'PortalOAuth was destroyed' }))
    this.#tokenActor?.stop()
    this.#adminActor?.stop()
  }

  // ---- Internals --------------------------------------------------------------------------------------------

  /** The machine's state as it stands, without telling it the time. */
  #state(): AccessTokenState {
    // Before the actor exists the machine would still be in its initial state.
    return (this.#tokenActor?.getSnapshot().value ?? 'valid') as AccessTokenState
  }

  /** The access-token actor, created and started on first use. */
  #token(): Actor<typeof accessTokenMachine> {
    if (this.#tokenActor) return this.#tokenActor
    const machine = accessTokenMachine.provide({
      actors: { refreshTokens: fromPromise<AccessTokenRefreshOutput>(() => this.#startRefresh()) },
    })
    const actor = createActor(machine, {
      input: { expires: this.#params.expires },
      ...(this.#deps.inspect ? { inspect: this.#deps.inspect } : {}),
    })
    this.#tokenActor = actor
    actor.start()
    if (this.#abort.signal.aborted) actor.stop()
    return actor
  }

  /** Tells the machine the time; a tick that cannot change anything needs no actor. */
  #tick(now: number): void {
    if (this.#tokenActor || this.#params.expires * 1000 <= now)
      this.#token().send({ type: 'clock.tick', now })
  }

  #assertAlive(): void {
    if (this.#abort.signal.aborted) throw this.#abort.signal.reason
  }

  #currentRefresh(): Promise<RefreshOutcome> {
    if (!this.#refreshInFlight)
      throw new SdkError({ code: 'JSSDK_INTERNAL', message: 'no refresh in flight' })
    return this.#refreshInFlight
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

  /** Body of the `refreshTokens` actor: starts the refresh and publishes it to every waiting caller. */
  async #startRefresh(): Promise<AccessTokenRefreshOutput> {
    const run = this.#refresh()
    this.#refreshInFlight = run
    run.catch(ignore)
    const { expires, generation } = await run
    return { expires, generation }
  }

  async #refresh(): Promise<RefreshOutcome> {
    const trace = traceRefreshStart(this.#generation)
    const previous = this.#params
    let raw: unknown
    try {
      raw = this.#customRefresh
        ? await this.#customRefresh({ refreshToken: previous.refreshToken, signal: this.#abort.signal })
        : await requestTokenRefresh({
            tokenUrl: tokenUrlFor(previous.serverEndpoint),
            refreshToken: previous.refreshToken,
            clientId: this.#secret.clientId,
            clientSecret: this.#secret.clientSecret,
            fetch: this.#deps.fetch(),
            timeout: this.#deps.timeout,
            signal: this.#abort.signal,
          })
    } catch (error) {
      const failure = asRefreshFailure(error, this.#deps.secrets)
      this.#deps.logger.error('token refresh failed', { error: failure })
      traceRefreshError(trace, failure, this.#deps.secrets)
      throw failure
    }
    const next = applyRefreshResult(
      previous,
      raw as Parameters<typeof applyRefreshResult>[1],
      this.#deps.now(),
    )
    this.#deps.secrets.add(next.accessToken)
    this.#deps.secrets.add(next.refreshToken)
    this.#params = next
    this.#generation += 1
    this.#deps.logger.info('token pair refreshed', { generation: this.#generation, expires: next.expires })
    traceRefreshEnd(trace, this.#generation, next.expires)
    const outcome: RefreshOutcome = { expires: next.expires, generation: this.#generation }
    const callback = this.#callback
    if (callback) {
      try {
        await callback({ authData: this.#authData(), b24OAuthParams: { ...next } })
      } catch (error) {
        // The new pair stays in use in memory; the application learns of the failure from the log and refreshAuth().
        outcome.callbackError = error
        this.#deps.logger.error(
          'refresh callback failed; the new token pair is kept in memory but was not persisted',
          {
            error,
          },
        )
      }
    }
    return outcome
  }

  #admin(): Actor<typeof adminFlagMachine> {
    if (this.#adminActor) return this.#adminActor
    const machine = adminFlagMachine.provide({
      actors: {
        loadIsAdmin: fromPromise<boolean>(() => {
          const run = this.#deps.loadIsAdmin(this.#adminRequestId)
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
