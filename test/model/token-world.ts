import { expect } from 'vitest'
import type { AuthData } from '../../src/index.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'
import type { TokenModelEvent } from './access-token.model.js'
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
 * One path's client and emulator, what a user should see so far, and the callers waiting on a refresh. The steps
 * (`token-steps.ts`) act on the client only through its public API and the shared clock, and keep these
 * expectations up to date; the observations compare them with what the client shows.
 */
export class TokenWorld {
  readonly rig: ModelRig
  /** The access token `getAuthData()` returns while the token is usable. */
  accessToken: string
  /** Refresh requests the OAuth server should have received. */
  refreshRequests = 0
  /** Calls of the custom refresh function a path arranged. */
  customCallsExpected = 0
  /** Calls of the custom refresh function made by the client. */
  customCalls = 0
  /** Successful refreshes, so calls of the refresh callback expected. */
  callbacks = 0
  /** REST requests on the wire when the refresh in flight was let go. */
  restBeforeRelease = 0
  /** The error a custom refresh function arranged by the path throws. */
  customError: Error | null = null
  #callers: Caller[] = []

  constructor(rig: ModelRig) {
    this.rig = rig
    this.accessToken = rig.portal.auth.getParams().accessToken
  }

  /**
   * Before the event that starts a refresh: arrange the outcome the next step expects (`invalid_grant` from the
   * OAuth server, or a custom refresh function that throws) and hold its answer until {@link release}.
   */
  arrangeRefresh(next: TokenModelEvent | undefined): void {
    const { emulator, hold, portal } = this.rig
    const failure = next?.type === 'xstate.error.actor.refresh' ? next.error.failure : undefined
    if (failure === 'custom') {
      const error = new Error('custom refresh failed')
      this.customError = error
      this.customCallsExpected += 1
      hold.arm({ kind: 'manual' })
      portal.setCustomRefreshAuth(async () => {
        this.customCalls += 1
        await hold.reached()
        throw error
      })
      return
    }
    if (failure === 'invalid_grant') {
      emulator.failOAuth({
        error: 'invalid_grant',
        error_description: 'The refresh token is dead',
        status: 400,
      })
    }
    this.refreshRequests += 1
    hold.arm({ kind: 'token', tokenUrl: emulator.tokenUrl })
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

  /** `promise`, noting in `seen` what a user sees the moment it settles. */
  #watch<T>(promise: Promise<T>, seen: SeenWhenSettled[]): Promise<T> {
    const note = (): void => {
      seen.push({ persisted: this.rig.persisted.length, tokenState: this.rig.portal.tokenState })
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

  /** The refresh (request or custom function) has reached the point where its answer is held. */
  async refreshArrived(): Promise<void> {
    await within(this.rig.hold.arrived, 'the refresh to reach its answer')
  }

  /** Lets the held refresh answer go and waits for every caller waiting on it; returns how each ended. */
  async release(): Promise<CallerOutcome[]> {
    const { hold, emulator } = this.rig
    await this.refreshArrived()
    this.restBeforeRelease = emulator.log.restRequests().length
    hold.release()
    const callers = this.#callers
    this.#callers = []
    expect(callers.length, 'a caller waits on every refresh').toBeGreaterThan(0)
    const outcomes = await within(
      Promise.all(callers.map((caller) => caller.result as Promise<Settled<unknown>>)),
      'the callers waiting on the refresh to go on',
    )
    return callers.map((caller, index) => ({ caller, outcome: outcomes[index] as Settled<unknown> }))
  }

  /** Lets a refresh still in flight end and every caller settle, so the client can be destroyed quietly. */
  async settle(): Promise<void> {
    this.rig.hold.release()
    const callers = this.#callers
    this.#callers = []
    await within(Promise.all(callers.map((caller) => caller.result)), 'the last callers to settle')
  }

  /** What a user sees after every step, whatever the state: the wire, the custom function, the callback. */
  checkEveryStep(): void {
    const { emulator, callbackCalls, persisted } = this.rig
    const refreshes = emulator.log.refreshRequests()
    expect(refreshes.length, 'refresh requests on the wire').toBe(this.refreshRequests)
    if (refreshes.length > 0) expectNothingInUrl(refreshes, rigSecrets(this.rig))
    expect(this.customCalls, 'custom refresh calls').toBe(this.customCallsExpected)
    expect(callbackCalls.length, 'refresh callback calls').toBe(this.callbacks)
    expect(persisted.length, 'refresh callbacks finished').toBe(this.callbacks)
  }
}
