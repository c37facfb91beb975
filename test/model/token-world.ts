import { expect } from 'vitest'
import type { AuthData } from '../../src/index.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'
import { AFTER_CALLBACK_TIMEOUT, AFTER_REFRESH_TIMEOUT, type TokenModelEvent } from './access-token.model.js'
import type { ModelRig } from './model-rig.js'
import { type Settled, settle } from './settled.js'
import { within } from './within.js'

/** What a user sees at the moment a call settled. */
export interface SeenWhenSettled {
  /** Callbacks that had finished persisting. */
  persisted: number
  /** `portal.tokenState` then. */
  tokenState: string
}

/** A user's call that waits on the refresh in flight (or started it), how it ended, and what was seen then. */
export type Caller =
  | { kind: 'refreshAuth'; result: Promise<Settled<AuthData>>; seen: SeenWhenSettled[] }
  | { kind: 'call'; result: Promise<Settled<{ isSuccess: boolean }>>; seen: SeenWhenSettled[] }

/** A caller with the way it ended. */
export interface CallerOutcome {
  caller: Caller
  outcome: Settled<unknown>
}

/**
 * How the next refresh attempt goes, arranged before it starts: the OAuth server answers a pair (`pair`),
 * `invalid_grant` (`dead`) or a 500 `server_error` (`transient`); a custom refresh throws (`custom`) or never answers
 * (`hang`); or another instance refreshes first and this one takes its pair from the store (`store`).
 */
export type AttemptPlan = 'pair' | 'dead' | 'transient' | 'custom' | 'hang' | 'store'

/** The plan of the attempt that ends with `event` (or that `event` interrupts). */
export function attemptPlan(event: TokenModelEvent | undefined): AttemptPlan {
  if (!event) return 'pair'
  if (event.type === 'xstate.done.actor.refresh') return event.output.fromStore ? 'store' : 'pair'
  if (event.type === AFTER_REFRESH_TIMEOUT) return 'hang'
  if (event.type === 'xstate.error.actor.refresh') {
    const variant = event.error.variant
    return variant === 'invalid_grant' ? 'dead' : variant === 'server_error' ? 'transient' : 'custom'
  }
  return 'pair'
}

/**
 * One path's client and emulator, what a user should see so far, and the callers waiting on a refresh. The steps
 * (`token-steps.ts`) act on the client only through its public API, the shared clock, the emulator and the holds,
 * and keep these expectations up to date; the observations compare them with what the client shows.
 */
export class TokenWorld {
  readonly rig: ModelRig
  /** The access token `getAuthData()` returns while the token is usable. */
  accessToken: string
  /** Refresh requests the OAuth server should have received. */
  refreshRequests = 0
  /** Calls of the custom refresh function the path arranged. */
  customCallsExpected = 0
  /** Calls of the custom refresh function made by the client. */
  customCalls = 0
  /** Calls of the refresh callback expected. */
  callbacks = 0
  /** Callbacks expected to have persisted their pair. */
  persisted = 0
  /** REST requests on the wire when the refresh in flight was let go. */
  restBeforeRelease = 0
  /** The error a custom refresh function arranged by the path throws. */
  customError: Error | null = null
  /** The `RefreshTokenError` that killed the pair, once dead. */
  deadError: unknown = null
  /** The plan of the attempt in flight. */
  plan: AttemptPlan | null = null
  /** Resolves once the attempt in flight reached its hold. */
  #arrived: Promise<void> = Promise.resolve()
  #callers: Caller[] = []

  constructor(rig: ModelRig) {
    this.rig = rig
    this.accessToken = rig.portal.auth.getParams().accessToken
  }

  /**
   * Before the event that starts a refresh attempt (or the backoff ends): arrange how the attempt goes and hold it
   * at its last moment until {@link releaseAttempt}, so that a path can look at the client meanwhile.
   */
  async arrangeAttempt(plan: AttemptPlan): Promise<void> {
    const { emulator, hold, portal, store, other } = this.rig
    this.plan = plan
    portal.removeCustomRefreshAuth()
    if (plan === 'custom' || plan === 'hang') {
      const error = new Error('custom refresh failed')
      this.customError = plan === 'custom' ? error : null
      hold.arm({ kind: 'manual' })
      this.#arrived = hold.arrived.then(() => {
        this.customCallsExpected += 1
      })
      portal.setCustomRefreshAuth(async ({ signal }) => {
        this.customCalls += 1
        if (plan === 'hang') {
          void hold.reached()
          // Never answers; the client abandons the attempt (its signal) when its refresh timeout passes.
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
        }
        await hold.reached()
        throw error
      })
      return
    }
    if (plan === 'store') {
      // This client's next lock waits; meanwhile another instance refreshes the shared pair, which this one finds
      // once it holds the lock (also when its attempt started while the other one was refreshing).
      this.#arrived = store.holdNextLock()
      await other.auth.refreshAuth()
      this.refreshRequests += 1
      return
    }
    if (plan === 'dead') {
      emulator.failOAuth({
        error: 'invalid_grant',
        error_description: 'The refresh token is dead',
        status: 400,
      })
    }
    if (plan === 'transient') emulator.failOAuth({ error: 'server_error', status: 500 })
    hold.arm({ kind: 'token', tokenUrl: emulator.tokenUrl })
    // The request counts once it has reached the OAuth server (a retry is arranged before it is sent).
    this.#arrived = hold.arrived.then(() => {
      this.refreshRequests += 1
    })
  }

  /** The attempt in flight has reached its hold. */
  async attemptArrived(): Promise<void> {
    await within(this.#arrived, 'the refresh attempt to reach its hold')
  }

  /** Lets the attempt in flight go on. */
  releaseAttempt(): void {
    const { emulator, hold, store } = this.rig
    this.restBeforeRelease = emulator.log.restRequests().length
    if (this.plan === 'store') store.release()
    else hold.release()
    this.plan = null
  }

  /** `refreshAuth()`, watched. */
  refreshAuth(): void {
    const seen: SeenWhenSettled[] = []
    const result = settle(this.#watch(this.rig.portal.auth.refreshAuth(), seen))
    this.#callers.push({ kind: 'refreshAuth', result, seen })
  }

  /** A v2 call, watched. */
  call(requestId: string): void {
    const seen: SeenWhenSettled[] = []
    const call = this.rig.portal.actions.v2.call.make({ method: 'server.time', requestId })
    this.#callers.push({ kind: 'call', result: settle(this.#watch(call, seen)), seen })
  }

  /** Whether callers are waiting. */
  get waiting(): number {
    return this.#callers.length
  }

  /** `promise`, noting in `seen` what a user sees the moment it settles. */
  #watch<T>(promise: Promise<T>, seen: SeenWhenSettled[]): Promise<T> {
    const note = (): void => {
      seen.push({ persisted: this.rig.callback.persisted.length, tokenState: this.rig.portal.tokenState })
    }
    return promise.then(
      (value) => {
        note()
        return value
      },
      (error: unknown) => {
        note()
        throw error
      },
    )
  }

  /** Waits for every caller waiting so far; returns how each ended. */
  async outcomes(): Promise<CallerOutcome[]> {
    const callers = this.#callers
    this.#callers = []
    const outcomes = await within(
      Promise.all(callers.map((caller) => caller.result as Promise<Settled<unknown>>)),
      'the callers waiting on the refresh to go on',
    )
    return callers.map((caller, index) => ({ caller, outcome: outcomes[index] as Settled<unknown> }))
  }

  /** Waits until the client's machine leaves the state it is in (a delayed transition of its own). */
  async stateChange(from: string): Promise<void> {
    const { portal } = this.rig
    await within(
      new Promise<void>((resolve) => {
        const subscription = portal.auth.tokenActor.subscribe((snapshot) => {
          if (JSON.stringify(snapshot.value) !== from) {
            subscription.unsubscribe()
            resolve()
          }
        })
        if (JSON.stringify(portal.auth.tokenActor.getSnapshot().value) !== from) {
          subscription.unsubscribe()
          resolve()
        }
      }),
      `the client to leave ${from}`,
    )
  }

  /** Lets a refresh still in flight end and every caller settle, so the client can be destroyed quietly. */
  async settle(): Promise<void> {
    this.rig.hold.release()
    this.rig.store.release()
    this.rig.callback.finish()
    const callers = this.#callers
    this.#callers = []
    await within(Promise.all(callers.map((caller) => caller.result)), 'the last callers to settle')
  }

  /** What a user sees after every step, whatever the state: the wire, the custom function, the callback. */
  checkEveryStep(): void {
    const { emulator, callback } = this.rig
    const refreshes = emulator.log.refreshRequests()
    expect(refreshes.length, 'refresh requests on the wire').toBe(this.refreshRequests)
    if (refreshes.length > 0) expectNothingInUrl(refreshes, rigSecrets(this.rig))
    expect(this.customCalls, 'custom refresh calls').toBe(this.customCallsExpected)
    expect(callback.calls.length, 'refresh callback calls').toBe(this.callbacks)
    expect(callback.persisted.length, 'refresh callbacks that persisted').toBe(this.persisted)
  }
}

/** Whether `event` ends the persisting of a refreshed pair. */
export function endsPersisting(event: TokenModelEvent | undefined): boolean {
  return (
    event?.type === 'xstate.done.actor.persist' ||
    event?.type === 'xstate.error.actor.persist' ||
    event?.type === AFTER_CALLBACK_TIMEOUT
  )
}
