import { expect } from 'vitest'
import type { AccessTokenState } from '../../machines/index.js'
import { type AuthData, RefreshTokenError } from '../../src/index.js'
import type { TokenModelEvent, TokenSnapshot } from './access-token.model.js'
import type { TokenWorld } from './token-world.js'

/** Where a step goes: the state before, the state the model says it reaches, and the event after it. */
export interface StepContext {
  from: TokenSnapshot
  to: TokenSnapshot
  next: TokenModelEvent | undefined
}

/** One event of the model played on the client: an action through the public API, then what a user sees of it. */
export interface TokenStep<E extends TokenModelEvent> {
  run: (world: TokenWorld, event: E, context: StepContext) => Promise<void>
}

/**
 * A step from an action and an observation. `act` makes the client take the event by itself: a public-API call,
 * the shared clock, or the emulator's answer; never a message to the client's actors. `observe` gets what `act`
 * returned (what the user got back) and checks what the event, and only it, changed. The state reached is checked
 * afterwards by {@link tokenStateObservations}.
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

/** The events of the access-token model as a user, the clock or the portal produce them. */
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
    (world, _event, { next }) => {
      world.arrangeRefresh(next)
      return world.rig.portal.auth.getAuthData()
    },
    async (world, returned) => {
      expect(returned, 'getAuthData() past expires').toBe(false)
      await world.refreshArrived()
    },
  ),

  'token.rejected': step(
    async (world, _event, { from, next }) => {
      const { clock, emulator, portal } = world.rig
      world.arrangeRefresh(next)
      const expiresMs = portal.auth.getParams().expires * 1000
      // From `expired` the client refreshes before sending; the portal can only reject a token the client still
      // trusts, so the clock goes back before `expires` for the call (a clock correction), and forward again once
      // the rejection has started the refresh.
      const fromExpired = from.value === 'expired'
      if (fromExpired) clock.set(expiresMs - 60_000)
      emulator.expireAccessTokens()
      const before = emulator.log.restRequests().length
      world.call('model-rejected')
      await world.refreshArrived()
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
      world.arrangeRefresh(next)
      world.refreshAuth()
      await world.refreshArrived()
    },
    () => {},
  ),

  'xstate.done.actor.refresh': step(
    (world) => world.release(),
    (world, outcomes) => {
      const { emulator, callbackCalls, persisted } = world.rig
      const fresh = emulator.currentAccessToken
      expect(fresh, 'the emulator issued a new pair').toBeDefined()
      expect(fresh).not.toBe(world.accessToken)
      world.accessToken = fresh ?? ''
      world.callbacks += 1
      const payload = callbackCalls.at(-1)
      expect(payload?.b24OAuthParams.accessToken, 'the callback receives the new pair').toBe(fresh)
      expect(payload?.b24OAuthParams.refreshToken).toBe(emulator.currentRefreshToken)
      expect(payload?.authData).toMatchObject({ access_token: fresh, member_id: emulator.memberId })
      expect(persisted.at(-1), 'the callback finished before anyone went on').toBe(payload)
      for (const { caller, outcome } of outcomes) {
        expect(outcome.ok, `${caller.kind} waiting on the refresh goes on`).toBe(true)
        expect(caller.seen, `when ${caller.kind} went on, the callback had finished`).toEqual([
          { persisted: world.callbacks, tokenState: 'valid' },
        ])
        if (!outcome.ok) continue
        if (caller.kind === 'refreshAuth') expect((outcome.value as AuthData).access_token).toBe(fresh)
        else expect((outcome.value as { isSuccess: boolean }).isSuccess, 'the call succeeds').toBe(true)
      }
      const sentAfter = emulator.log.restRequests().slice(world.restBeforeRelease)
      const waitingCalls = outcomes.filter(({ caller }) => caller.kind === 'call').length
      expect(sentAfter.length, 'each waiting call goes out once').toBe(waitingCalls)
      for (const entry of sentAfter) expect(entry.token, 'calls go out with the new token').toBe(fresh)
    },
  ),

  'xstate.error.actor.refresh': step(
    (world) => world.release(),
    (world, outcomes, event, { to }) => {
      const { emulator, logLines, portal } = world.rig
      for (const { caller, outcome } of outcomes) {
        expect(outcome.ok, `${caller.kind} waiting on the refresh gets its error`).toBe(false)
        expect(caller.seen, `when ${caller.kind} got its error`).toEqual([
          { persisted: world.callbacks, tokenState: to.value },
        ])
        if (outcome.ok) continue
        if (event.error.failure === 'custom') {
          expect(outcome.error, 'the custom refresh error is rethrown unchanged').toBe(world.customError)
        } else {
          expect(outcome.error).toBeInstanceOf(RefreshTokenError)
          expect(outcome.error).toMatchObject({ code: 'invalid_grant', status: 400 })
        }
      }
      expect(emulator.log.restRequests().length, 'no call goes out after a failed refresh').toBe(
        world.restBeforeRelease,
      )
      expect(logLines.some((line) => line.level === 'error' && line.message === 'token refresh failed')).toBe(
        true,
      )
      if (event.error.failure === 'custom') {
        portal.removeCustomRefreshAuth()
        world.customError = null
      }
    },
  ),
}

/** What a user sees in each state; the compiler asks for one when the machine gets a new state. */
export const tokenStateObservations: Record<
  AccessTokenState,
  (world: TokenWorld, state: TokenSnapshot) => void
> = {
  valid: (world) => {
    const { portal } = world.rig
    const data = portal.auth.getAuthData()
    expect(data, 'getAuthData() in valid').not.toBe(false)
    expect(data === false ? undefined : data.access_token).toBe(world.accessToken)
  },
  expired: (world) => {
    // getAuthData() would start a refresh here; without one a user sees the pair held, past its expiry.
    const { portal, clock } = world.rig
    const params = portal.auth.getParams()
    expect(params.accessToken).toBe(world.accessToken)
    expect(params.expires * 1000).toBeLessThanOrEqual(clock.now())
  },
  refreshing: (world, state) => {
    const { portal } = world.rig
    const data = portal.auth.getAuthData()
    if (state.context.refreshOrigin === 'expired') {
      expect(data, 'getAuthData() while refreshing an expired token').toBe(false)
    } else {
      expect(data === false ? undefined : data.access_token, 'getAuthData() while refreshing').toBe(
        world.accessToken,
      )
    }
    // More callers during the refresh wait for the same one: no second request (counted at the next state), and
    // their calls go out with the new token.
    world.refreshAuth()
    world.call('model-waiting')
    expect(portal.tokenState).toBe('refreshing')
  },
}
