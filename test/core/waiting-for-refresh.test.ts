import { afterEach, describe, expect, it } from 'vitest'
import { captureProcessWarnings, createTestClock, type Rig, startRig } from '../helpers.js'

// Calls that wait for the one refresh in flight, each within its own timeout and signal, while the OAuth server holds
// the refresh: a caller that gives up does not end the refresh for the others.

let rig: Rig
afterEach(async () => {
  rig?.emulator.releaseHeldRequests()
  await rig?.close()
})

/** A rig whose pair the portal has expired, with the next refresh request held by the OAuth server. */
async function heldRefresh(): Promise<Rig> {
  const started = await startRig()
  started.emulator.expireAccessTokens()
  started.emulator.holdRequests(1, { server: 'oauth' })
  return started
}

describe('calls waiting for a refresh the OAuth server holds', () => {
  it("a call's own timeout ends its wait with REQUEST_TIMEOUT; the refresh goes on and the next call uses its pair", async () => {
    rig = await heldRefresh()
    const waiting = rig.portal.actions.v2.call
      .make({ method: 'profile', timeout: 200 })
      .catch((error: unknown) => error)
    await rig.emulator.waitForHeld(1)
    expect(await waiting).toMatchObject({
      name: 'AjaxError',
      code: 'REQUEST_TIMEOUT',
      // The token was rejected after the call's request went out: the wait got what was left of the 200 ms.
      message: expect.stringMatching(
        /^token refresh: no new access token within 1?\d{1,2} ms, what the call had left of its timeout \(the refresh goes on for other callers\)$/,
      ),
      request: { method: 'oauth/token' },
    })
    expect(rig.portal.tokenState).toBe('refreshing')
    rig.emulator.releaseHeldRequests()
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    expect(rig.emulator.log.restRequests().at(-1)?.token).toBe(rig.portal.auth.getParams().accessToken)
  })

  it('a call cancelled by its signal rejects with REQUEST_ABORTED while the refresh is still held; the others get their answers', async () => {
    rig = await heldRefresh()
    const controller = new AbortController()
    const cancelled = rig.portal.actions.v2.call
      .make({ method: 'profile', signal: controller.signal })
      .catch((error: unknown) => error)
    const patient = rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })
    await rig.emulator.waitForHeld(1)
    controller.abort()
    expect(await cancelled).toMatchObject({
      name: 'AjaxError',
      code: 'REQUEST_ABORTED',
      message: "v2 profile: cancelled by the caller's signal",
    })
    // Still held: the cancelled call did not wait for the refresh to end.
    expect(rig.emulator.log.refreshRequests()).toHaveLength(0)
    expect(rig.portal.tokenState).toBe('refreshing')
    rig.emulator.releaseHeldRequests()
    expect((await patient).isSuccess).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('thirty calls waiting at once (more than an event target warns about) raise no process warning', async () => {
    // The client knows the pair expired, so every call waits for the refresh before it sends anything.
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now } })
    rig.emulator.holdRequests(1, { server: 'oauth' })
    clock.advance(3_601_000)
    const captured = captureProcessWarnings()
    try {
      const calls = Array.from({ length: 30 }, () => rig.portal.actions.v2.call.make({ method: 'profile' }))
      await rig.emulator.waitForHeld(1)
      rig.emulator.releaseHeldRequests()
      const results = await Promise.all(calls)
      expect(results.every((result) => result.isSuccess)).toBe(true)
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      captured.stop()
    }
    expect(captured.warnings.map((warning) => warning.name)).toEqual([])
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })
})
