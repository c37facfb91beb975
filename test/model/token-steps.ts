import { expect } from 'vitest'
import type { AccessTokenState } from '../../machines/index.js'
import { type AuthData, RefreshTokenError, SdkErrorCode } from '../../src/index.js'
import {
  AFTER_CALLBACK_TIMEOUT,
  AFTER_REFRESH_TIMEOUT,
  AFTER_RETRY_DELAY,
  MODEL_SETTINGS,
  refreshStep,
  type TokenModelEvent,
  type TokenSnapshot,
  topState,
} from './access-token.model.js'
import type { CallbackPlan } from './model-rig.js'
import { attemptPlan, type CallerOutcome, type TokenWorld } from './token-world.js'

/** Where a step goes: the state before, the state the model says it reaches, and the two events after it. */
export interface StepContext {
  from: TokenSnapshot
  to: TokenSnapshot
  next: TokenModelEvent | undefined
  /** The event after `next`. */
  after: TokenModelEvent | undefined
}

/** One event of the model played on the client: an action through the public API, then what a user sees of it. */
export interface TokenStep<E extends TokenModelEvent> {
  run: (world: TokenWorld, event: E, context: StepContext) => Promise<void>
}

/**
 * A step from an action and an observation. `act` makes the client take the event by itself: a public-API call,
 * the shared clock, the emulator's answer, a hold let go, or time passing; never a message to the client's actors.
 * `observe` gets what `act` returned and checks what the event changed. The state reached is checked afterwards by
 * {@link tokenStateObservations}.
 */
function step<E extends TokenModelEvent, R>(
  act: (world: TokenWorld, event: E, context: StepContext) => Promise<R> | R,
  observe: (world: TokenWorld, returned: R, event: E, context: StepContext) => Promise<void> | void,
): TokenStep<E> {
  return {
    run: async (world, event, context) => observe(world, await act(world, event, context), event, context),
  }
}

/** Every event of the model; the compiler asks for a step when the machine gets a new event. */
export type TokenSteps = {
  [K in TokenModelEvent['type']]: TokenStep<Extract<TokenModelEvent, { type: K }>>
}

/** What the refresh callback is to do with the pair the next event hands over. */
function callbackPlan(event: TokenModelEvent | undefined): CallbackPlan {
  if (event?.type === 'xstate.error.actor.persist') return 'throw'
  if (event?.type === AFTER_CALLBACK_TIMEOUT) return 'hang'
  return 'persist'
}

/** After a failed attempt, when the backoff will end: arrange the next attempt before it starts. */
async function arrangeRetry(world: TokenWorld, { next, after }: StepContext): Promise<void> {
  if (next?.type === AFTER_RETRY_DELAY) await world.arrangeAttempt(attemptPlan(after))
}

/** Every caller waiting went on with the new pair, after the callback had done what it does. */
function expectWentOn(world: TokenWorld, outcomes: CallerOutcome[], tokenState: AccessTokenState): void {
  const { emulator } = world.rig
  for (const { caller, outcome } of outcomes) {
    expect(caller.seen, `when ${caller.kind} went on`).toEqual([{ persisted: world.persisted, tokenState }])
    if (caller.kind === 'call') {
      expect(outcome.ok, 'a waiting call goes on').toBe(true)
      if (outcome.ok)
        expect((outcome.value as { isSuccess: boolean }).isSuccess, 'the call succeeds').toBe(true)
    }
  }
  const sentAfter = emulator.log.restRequests().slice(world.restBeforeRelease)
  const waitingCalls = outcomes.filter(({ caller }) => caller.kind === 'call').length
  expect(sentAfter.length, 'each waiting call goes out once').toBe(waitingCalls)
  for (const entry of sentAfter)
    expect(entry.token, 'calls go out with the new token').toBe(world.accessToken)
}

/** Every caller waiting got the refresh's failure; nothing went out. */
function expectFailed(world: TokenWorld, outcomes: CallerOutcome[], check: (error: unknown) => void): void {
  for (const { caller, outcome } of outcomes) {
    expect(outcome.ok, `${caller.kind} waiting on the refresh gets its error`).toBe(false)
    if (!outcome.ok) check(outcome.error)
  }
  expect(world.rig.emulator.log.restRequests().length, 'no call goes out after a failed refresh').toBe(
    world.restBeforeRelease,
  )
}

/** The events of the access-token model as a user, the clock, the portal, the callback or time produce them. */
export const tokenSteps: TokenSteps = {
  'clock.tick': step(
    (world) => {
      // Time passes beyond `expires`; nothing is called: the client must notice by itself.
      const { clock, portal } = world.rig
      clock.set(portal.auth.getParams().expires * 1000 + 1000)
    },
    (world) => {
      expect(world.rig.portal.tokenState, 'tokenState reads the clock').toBe('expired')
    },
  ),

  'authData.requested': step(
    async (world, _event, { from, next }) => {
      const { clock, portal } = world.rig
      // From `valid`: inside the eager margin, before expiry; from `expired` the clock is past it already.
      if (topState(from) === 'valid') {
        clock.set(portal.auth.getParams().expires * 1000 - MODEL_SETTINGS.eagerRefreshMs / 2)
      }
      await world.arrangeAttempt(attemptPlan(next))
      const returned = portal.auth.getAuthData()
      await world.attemptArrived()
      return returned
    },
    (world, returned, _event, { from }) => {
      if (topState(from) === 'valid') {
        expect(returned, 'getAuthData() in the eager margin still answers').not.toBe(false)
        expect((returned as AuthData).access_token).toBe(world.accessToken)
      } else {
        expect(returned, 'getAuthData() past expires').toBe(false)
      }
    },
  ),

  'token.rejected': step(
    async (world, _event, { from, next }) => {
      const { clock, emulator, portal } = world.rig
      // Every token issued so far expires; a pair another instance refreshes for the attempt below stays valid.
      emulator.expireAccessTokens()
      await world.arrangeAttempt(attemptPlan(next))
      const expiresMs = portal.auth.getParams().expires * 1000
      // From `expired` the client refreshes before sending; the portal can only reject a token the client still
      // trusts, so the clock goes back before `expires` (and the eager margin) for the call, and forward again once
      // the rejection has started the refresh.
      const fromExpired = from.value === 'expired'
      if (fromExpired) clock.set(expiresMs - 2 * MODEL_SETTINGS.eagerRefreshMs)
      const before = emulator.log.restRequests().length
      world.call('model-rejected')
      await world.attemptArrived()
      if (fromExpired) clock.set(expiresMs + 1000)
      return emulator.log.restRequests().slice(before)
    },
    (world, sent) => {
      expect(sent, 'the call went out once before the refresh').toHaveLength(1)
      expect(sent[0], 'the portal rejected the token the client held').toMatchObject({
        token: world.accessToken,
        errorCode: 'expired_token',
      })
    },
  ),

  'refresh.requested': step(
    async (world, _event, { next }) => {
      await world.arrangeAttempt(attemptPlan(next))
      world.refreshAuth()
      await world.attemptArrived()
    },
    () => {},
  ),

  'pair.replaced': step(
    async (world, _event, { from }) => {
      const { emulator, portal } = world.rig
      const pair = emulator.issueAuthParams()
      const waiting = world.waiting
      portal.setAuthOptions(pair)
      world.accessToken = pair.accessToken
      // A refresh of the replaced pair still in flight is abandoned: let it end, it changes nothing.
      if (refreshStep(from) === 'requesting') world.releaseAttempt()
      if (refreshStep(from) === 'persisting') {
        world.rig.callback.finish()
        world.persisted += 1
      }
      world.restBeforeRelease = emulator.log.restRequests().length
      return { waiting, outcomes: await world.outcomes() }
    },
    (world, { waiting, outcomes }) => {
      expect(outcomes).toHaveLength(waiting)
      for (const { caller, outcome } of outcomes) {
        expect(outcome.ok, `${caller.kind} waiting when the pair was replaced goes on`).toBe(true)
        if (outcome.ok && caller.kind === 'refreshAuth') {
          expect((outcome.value as AuthData).access_token).toBe(world.accessToken)
        }
      }
      const data = world.rig.portal.auth.getAuthData()
      expect(data === false ? undefined : data.access_token, 'getAuthData() gives the new pair').toBe(
        world.accessToken,
      )
    },
  ),

  'client.closing': step(
    async (world) => {
      const closed = world.rig.portal.destroy()
      const outcomes = await world.outcomes()
      await closed
      return outcomes
    },
    (_world, outcomes) => {
      expect(outcomes.length, 'callers were waiting for the next attempt').toBeGreaterThan(0)
      for (const { outcome } of outcomes) {
        expect(outcome.ok).toBe(false)
        if (!outcome.ok) expect(outcome.error).toMatchObject({ code: SdkErrorCode.Destroyed })
      }
    },
  ),

  'xstate.done.actor.refresh': step(
    async (world, event, { next }) => {
      const { callback, emulator } = world.rig
      if (event.output.fromStore) {
        world.releaseAttempt()
        world.accessToken = emulator.currentAccessToken ?? ''
        return { fromStore: true, outcomes: await world.outcomes() }
      }
      callback.plan(callbackPlan(next))
      world.releaseAttempt()
      await callback.started
      world.callbacks += 1
      world.accessToken = emulator.currentAccessToken ?? ''
      return { fromStore: false, outcomes: [] as CallerOutcome[] }
    },
    (world, { fromStore, outcomes }) => {
      const { callback, emulator } = world.rig
      if (fromStore) {
        // Taken from the store: no request, no callback; callers go on with the pair the other instance got.
        expect(world.rig.portal.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
        expectWentOn(world, outcomes, 'valid')
        return
      }
      const fresh = emulator.currentAccessToken
      expect(fresh, 'the emulator issued a new pair').toBeDefined()
      const payload = callback.calls.at(-1)
      expect(payload?.b24OAuthParams.accessToken, 'the callback receives the new pair').toBe(fresh)
      expect(payload?.b24OAuthParams.refreshToken).toBe(emulator.currentRefreshToken)
      expect(payload?.authData).toMatchObject({ access_token: fresh, member_id: emulator.memberId })
    },
  ),

  'xstate.done.actor.persist': step(
    async (world) => {
      world.rig.callback.finish()
      world.persisted += 1
      return world.outcomes()
    },
    (world, outcomes) => {
      expectWentOn(world, outcomes, 'valid')
      for (const { caller, outcome } of outcomes) {
        if (caller.kind === 'refreshAuth' && outcome.ok) {
          expect((outcome.value as AuthData).access_token).toBe(world.accessToken)
        }
      }
    },
  ),

  'xstate.error.actor.persist': step(
    async (world) => {
      world.rig.callback.finish()
      return world.outcomes()
    },
    (world, outcomes) => {
      expectWentOn(world, outcomes, 'valid')
      for (const { caller, outcome } of outcomes) {
        if (caller.kind !== 'refreshAuth') continue
        expect(outcome.ok, 'refreshAuth() tells that the callback failed').toBe(false)
        if (!outcome.ok) expect(outcome.error).toBe(world.rig.callback.error)
      }
      expect(
        world.rig.logLines.some(
          (line) => line.level === 'error' && line.message.startsWith('refresh callback failed'),
        ),
      ).toBe(true)
    },
  ),

  [AFTER_CALLBACK_TIMEOUT]: step(
    async (world) => {
      await world.stateChange(JSON.stringify({ refreshing: 'persisting' }))
      return world.outcomes()
    },
    (world, outcomes) => {
      expectWentOn(world, outcomes, 'valid')
      for (const { caller, outcome } of outcomes) {
        if (caller.kind !== 'refreshAuth') continue
        expect(outcome.ok).toBe(false)
        if (!outcome.ok) expect(outcome.error).toMatchObject({ code: SdkErrorCode.CallbackTimeout })
      }
    },
  ),

  'xstate.error.actor.refresh': step(
    async (world, event, context) => {
      world.releaseAttempt()
      if (refreshStep(context.to) === 'waitingToRetry') {
        await world.stateChange(JSON.stringify({ refreshing: 'requesting' }))
        await arrangeRetry(world, context)
        return { outcomes: [] as CallerOutcome[], variant: event.error.variant }
      }
      return { outcomes: await world.outcomes(), variant: event.error.variant }
    },
    (world, { outcomes, variant }, _event, { to }) => {
      const { logLines, portal } = world.rig
      expect(logLines.some((line) => line.level === 'error' && line.message === 'token refresh failed')).toBe(
        true,
      )
      if (refreshStep(to) === 'waitingToRetry') return
      if (variant === 'custom') {
        expectFailed(world, outcomes, (error) =>
          expect(error, 'the custom refresh error').toBe(world.customError),
        )
        portal.removeCustomRefreshAuth()
        world.customError = null
        return
      }
      const code = variant === 'invalid_grant' ? 'invalid_grant' : 'server_error'
      const first = outcomes[0]?.outcome
      expectFailed(world, outcomes, (error) => {
        expect(error).toBeInstanceOf(RefreshTokenError)
        expect(error).toMatchObject({ code })
        // Every caller gets the same error: one refresh, one outcome.
        if (first && !first.ok) expect(error).toBe(first.error)
      })
      if (topState(to) === 'dead' && first && !first.ok) world.deadError = first.error
    },
  ),

  [AFTER_REFRESH_TIMEOUT]: step(
    async (world, _event, context) => {
      await world.stateChange(JSON.stringify({ refreshing: 'requesting' }))
      world.plan = null
      world.rig.portal.removeCustomRefreshAuth()
      if (refreshStep(context.to) === 'waitingToRetry') {
        await arrangeRetry(world, context)
        return [] as CallerOutcome[]
      }
      return world.outcomes()
    },
    (world, outcomes, _event, { to }) => {
      if (refreshStep(to) === 'waitingToRetry') return
      expectFailed(world, outcomes, (error) =>
        expect(error).toMatchObject({ code: SdkErrorCode.RequestTimeout }),
      )
    },
  ),

  [AFTER_RETRY_DELAY]: step(
    async (world) => {
      // The backoff ends by itself; the next attempt (arranged when the last one failed) reaches its hold.
      await world.attemptArrived()
    },
    () => {},
  ),
}

/** What a user sees in each state; the compiler asks for one when the machine gets a new state. */
export const tokenStateObservations: Record<
  AccessTokenState,
  (world: TokenWorld, state: TokenSnapshot) => Promise<void> | void
> = {
  valid: (world, state) => {
    if (state.context.closing) return
    const data = world.rig.portal.auth.getAuthData()
    expect(data, 'getAuthData() in valid').not.toBe(false)
    expect(data === false ? undefined : data.access_token).toBe(world.accessToken)
  },
  expired: (world, state) => {
    // getAuthData() would start a refresh here; without one a user sees the pair held, past its expiry.
    if (state.context.closing) return
    const { portal, clock } = world.rig
    const params = portal.auth.getParams()
    expect(params.accessToken).toBe(world.accessToken)
    expect(params.expires * 1000).toBeLessThanOrEqual(clock.now())
  },
  refreshing: (world, state) => {
    const { portal } = world.rig
    const data = portal.auth.getAuthData()
    const step = refreshStep(state)
    if (step !== 'persisting' && state.context.refreshOrigin === 'expired') {
      expect(data, 'getAuthData() while refreshing an expired token').toBe(false)
    } else {
      expect(data === false ? undefined : data.access_token, 'getAuthData() while refreshing').toBe(
        world.accessToken,
      )
    }
    // More callers during the refresh wait for the same one: no second request (counted at every step). A call
    // waits unless the refresh runs in the background of a token still valid.
    world.refreshAuth()
    if (step === 'persisting' || !state.context.background) world.call('model-waiting')
    expect(portal.tokenState).toBe('refreshing')
  },
  dead: async (world) => {
    const { emulator, portal } = world.rig
    const before = emulator.log.entries.length
    expect(portal.auth.getAuthData(), 'getAuthData() on a dead pair').toBe(false)
    await expect(portal.auth.refreshAuth(), 'refreshAuth() fails at once').rejects.toBe(world.deadError)
    await expect(portal.actions.v2.call.make({ method: 'server.time' }), 'a call fails at once').rejects.toBe(
      world.deadError,
    )
    expect(emulator.log.entries.length, 'nothing is sent for a dead pair').toBe(before)
  },
}
