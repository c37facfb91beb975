import { expect } from 'vitest'
import { waitFor } from 'xstate'
import { type AuthData, RefreshTokenError } from '../../src/index.js'
import type { RefreshFailure, TokenModelEvent, TokenPath, TokenSnapshot } from './access-token.model.js'
import type { ModelRig } from './model-rig.js'
import { type Settled, settle } from './settled.js'
import { within } from './within.js'

/** The user action that started the refresh in flight, and how it ends. */
type Trigger =
  | { kind: 'getAuthData' }
  | { kind: 'refreshAuth'; result: Promise<Settled<AuthData>> }
  | { kind: 'call'; result: Promise<Settled<{ isSuccess: boolean }>> }

/** What a user should see, as the path has driven it so far. */
interface Expected {
  /** The access token `getAuthData()` returns while the token is usable. */
  accessToken: string
  /** Refresh requests the OAuth server received. */
  refreshRequests: number
  /** Calls of the custom refresh function. */
  customCalls: number
  /** Calls of the refresh callback. */
  callbacks: number
}

/**
 * Runs one path of the access-token model as real actions on a `PortalOAuth` and the emulator, and after each
 * step checks what a user of the client observes.
 */
export class TokenPathDriver {
  readonly #rig: ModelRig
  readonly #expected: Expected
  #trigger: Trigger | null = null
  #waiters: Array<Promise<Settled<AuthData>>> = []
  #customError: Error | null = null
  #customCalls = 0

  constructor(rig: ModelRig) {
    this.#rig = rig
    this.#expected = {
      accessToken: rig.portal.auth.getParams().accessToken,
      refreshRequests: 0,
      customCalls: 0,
      callbacks: 0,
    }
  }

  /** Executes every step, then checks the state it reached. */
  async run(path: TokenPath): Promise<void> {
    const { steps } = path
    for (const [index, step] of steps.entries()) {
      await this.#execute(step.event, steps[index + 1]?.event)
      await this.#check(step.state)
    }
  }

  /** Lets a refresh still in flight end, so the client can be destroyed quietly. */
  async settle(): Promise<void> {
    const { hold, portal } = this.#rig
    hold.release()
    await within(
      waitFor(portal.auth.tokenActor, (snapshot) => !snapshot.matches('refreshing')),
      'the last refresh to end',
    )
    await Promise.all([this.#triggerResult(), ...this.#waiters])
  }

  async #execute(event: TokenModelEvent | { type: 'xstate.init' }, next: TokenModelEvent | undefined) {
    const { portal, clock, emulator } = this.#rig
    switch (event.type) {
      case 'xstate.init':
        return
      case 'clock.tick': {
        // Time passes beyond `expires`. The client notices on getAuthData() or before a call, and then sends the
        // same tick as here, immediately followed by `authData.requested`; to stop in `expired` the tick is sent
        // on its own, to the client's own actor.
        clock.set(portal.auth.getParams().expires * 1000 + 1000)
        portal.auth.tokenActor.send({ type: 'clock.tick', now: clock.now() })
        return
      }
      case 'authData.requested': {
        this.#arrangeRefresh(next)
        expect(portal.auth.getAuthData(), 'getAuthData() past expires').toBe(false)
        this.#trigger = { kind: 'getAuthData' }
        return
      }
      case 'refresh.requested': {
        this.#arrangeRefresh(next)
        this.#trigger = { kind: 'refreshAuth', result: settle(portal.auth.refreshAuth()) }
        return
      }
      case 'token.rejected': {
        this.#arrangeRefresh(next)
        const from = portal.tokenState
        const expiresMs = portal.auth.getParams().expires * 1000
        // From `expired` the client refreshes before sending; the portal can only reject a token the client still
        // trusts, so the client clock is set back before `expires` for the call (a clock correction) and forward
        // again once the rejection has started the refresh.
        if (from === 'expired') clock.set(expiresMs - 60_000)
        emulator.expireAccessTokens()
        this.#trigger = {
          kind: 'call',
          result: settle(portal.actions.v2.call.make({ method: 'app.info', requestId: 'model' })),
        }
        await within(
          waitFor(portal.auth.tokenActor, (snapshot) => snapshot.matches('refreshing')),
          'expired_token to start the refresh',
        )
        if (from === 'expired') clock.set(expiresMs + 1000)
        return
      }
      case 'xstate.done.actor.refresh':
        return this.#refreshSucceeded()
      case 'xstate.error.actor.refresh':
        return this.#refreshFailed(event.error.failure)
    }
  }

  /** Before the event that starts a refresh: arrange the outcome the next step expects, and hold the answer. */
  #arrangeRefresh(next: TokenModelEvent | undefined): void {
    const { emulator, hold, portal } = this.#rig
    const failure = next?.type === 'xstate.error.actor.refresh' ? next.error.failure : undefined
    if (failure === 'custom') {
      const error = new Error('custom refresh failed')
      this.#customError = error
      this.#expected.customCalls += 1
      hold.arm({ kind: 'manual' })
      portal.setCustomRefreshAuth(async () => {
        this.#customCalls += 1
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
    this.#expected.refreshRequests += 1
    hold.arm({ kind: 'token', tokenUrl: emulator.tokenUrl })
  }

  async #release(): Promise<Array<Settled<unknown>>> {
    const { hold, portal } = this.#rig
    await within(hold.arrived, 'the refresh to reach its answer')
    hold.release()
    await within(
      waitFor(portal.auth.tokenActor, (snapshot) => !snapshot.matches('refreshing')),
      'the refresh to end',
    )
    const outcomes: Array<Settled<unknown>> = await Promise.all(this.#waiters)
    const trigger = await this.#triggerResult()
    this.#waiters = []
    return trigger ? [trigger, ...outcomes] : outcomes
  }

  async #triggerResult(): Promise<Settled<unknown> | undefined> {
    const trigger = this.#trigger
    return trigger && trigger.kind !== 'getAuthData' ? trigger.result : undefined
  }

  async #refreshSucceeded(): Promise<void> {
    const { emulator, callbackCalls } = this.#rig
    const trigger = this.#trigger
    const outcomes = await this.#release()
    this.#trigger = null
    const fresh = emulator.currentAccessToken
    expect(fresh, 'the emulator issued a new pair').toBeDefined()
    expect(fresh).not.toBe(this.#expected.accessToken)
    this.#expected.accessToken = fresh ?? ''
    this.#expected.callbacks += 1
    expect(callbackCalls.at(-1)?.b24OAuthParams.accessToken, 'the callback receives the new pair').toBe(fresh)
    expect(callbackCalls.at(-1)?.authData.member_id).toBe(emulator.memberId)
    for (const outcome of outcomes) {
      expect(outcome.ok, 'every caller waiting on the refresh goes on').toBe(true)
    }
    const [first] = outcomes
    if (trigger?.kind === 'refreshAuth' && first?.ok) {
      expect((first.value as AuthData).access_token).toBe(fresh)
    }
    if (trigger?.kind === 'call' && first?.ok) {
      expect(
        (first.value as { isSuccess: boolean }).isSuccess,
        'the rejected call succeeds once sent again',
      ).toBe(true)
      expect(emulator.log.restRequests().at(-1)?.token, 'the call is sent again with the new token').toBe(
        fresh,
      )
    }
  }

  async #refreshFailed(failure: RefreshFailure): Promise<void> {
    const { portal, logLines } = this.#rig
    const outcomes = await this.#release()
    this.#trigger = null
    expect(outcomes.length).toBeGreaterThan(0)
    for (const outcome of outcomes) {
      expect(outcome.ok, 'every caller waiting on the refresh gets its error').toBe(false)
      if (outcome.ok) continue
      if (failure === 'custom') {
        expect(outcome.error, 'the custom refresh error is rethrown unchanged').toBe(this.#customError)
      } else {
        expect(outcome.error).toBeInstanceOf(RefreshTokenError)
        expect(outcome.error).toMatchObject({ code: 'invalid_grant', status: 400 })
      }
    }
    expect(logLines.some((line) => line.level === 'error' && line.message === 'token refresh failed')).toBe(
      true,
    )
    if (failure === 'custom') {
      portal.removeCustomRefreshAuth()
      this.#customError = null
    }
  }

  /** What a user observes in `state`. */
  async #check(state: TokenSnapshot): Promise<void> {
    const { portal, emulator, clock, hold, callbackCalls } = this.#rig
    const value = String(state.value)
    expect(portal.tokenState, 'portal.tokenState').toBe(value)
    if (value === 'refreshing') await within(hold.arrived, 'the refresh to reach its answer')
    expect(emulator.log.refreshRequests().length, 'refresh requests on the wire').toBe(
      this.#expected.refreshRequests,
    )
    expect(this.#customCalls, 'custom refresh calls').toBe(this.#expected.customCalls)
    expect(callbackCalls.length, 'refresh callback calls').toBe(this.#expected.callbacks)
    switch (value) {
      case 'valid': {
        const data = portal.auth.getAuthData()
        expect(data, 'getAuthData() in valid').not.toBe(false)
        expect(data === false ? undefined : data.access_token).toBe(this.#expected.accessToken)
        expect(portal.tokenState).toBe('valid')
        return
      }
      case 'expired': {
        expect(portal.auth.getParams().expires * 1000).toBeLessThanOrEqual(clock.now())
        return
      }
      case 'refreshing': {
        const data = portal.auth.getAuthData()
        if (state.context.refreshOrigin === 'expired')
          expect(data, 'getAuthData() while refreshing').toBe(false)
        else
          expect(data === false ? undefined : data.access_token, 'getAuthData() while refreshing').toBe(
            this.#expected.accessToken,
          )
        // Another caller during the refresh waits for the same one: no second request (counted at the next state).
        this.#waiters.push(settle(portal.auth.refreshAuth()))
        expect(portal.tokenState).toBe('refreshing')
        return
      }
      default:
        throw new Error(`the access-token driver does not know state ${value}`)
    }
  }
}
