import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

// The client's own reading of `expires` (Unix seconds) against its clock (ms), at the exact edges: the pair's last
// millisecond, and the first millisecond of the eager margin.

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** A clock that moves only when told, shared by the client and the emulator. */
function fixedClock(start: number) {
  let now = start
  return { now: () => now, set: (ms: number) => (now = ms) }
}

describe('expiry edges', () => {
  it('getAuthData() gives the pair up to the millisecond before expiry and false from that millisecond on', async () => {
    const clock = fixedClock(Date.now())
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now, eagerRefreshMs: 0 } })
    const { expires } = rig.portal.auth.getParams()
    clock.set(expires * 1000 - 1)
    expect(rig.portal.auth.getAuthData()).toMatchObject({ expires })
    expect(rig.portal.tokenState).toBe('valid')
    clock.set(expires * 1000)
    expect(rig.portal.tokenState).toBe('expired')
    expect(rig.portal.auth.getAuthData()).toBe(false)
  })

  it('from the first millisecond of the eager margin getAuthData() still gives the pair and one refresh starts', async () => {
    const clock = fixedClock(Date.now())
    const eagerRefreshMs = 30_000
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now, eagerRefreshMs } })
    const before = rig.portal.auth.getParams()
    clock.set(before.expires * 1000 - eagerRefreshMs - 1)
    expect(rig.portal.auth.getAuthData()).toMatchObject({ access_token: before.accessToken })
    expect(rig.portal.tokenState).toBe('valid')
    clock.set(before.expires * 1000 - eagerRefreshMs)
    expect(rig.portal.auth.getAuthData()).toMatchObject({ access_token: before.accessToken })
    await expect.poll(() => rig.portal.auth.getParams().refreshToken).not.toBe(before.refreshToken)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    expect(rig.emulator.log.refreshRequests()[0]?.token).toBe(before.refreshToken)
  })

  it('a call in the eager margin goes at once with the pair held, and one refresh runs beside it', async () => {
    const clock = fixedClock(Date.now())
    const eagerRefreshMs = 30_000
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now, eagerRefreshMs } })
    const before = rig.portal.auth.getParams()
    clock.set(before.expires * 1000 - eagerRefreshMs - 1)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(0)
    clock.set(before.expires * 1000 - eagerRefreshMs)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await expect.poll(() => rig.emulator.log.refreshRequests().length).toBe(1)
    const tokens = rig.emulator.log.restRequests().map((entry) => entry.token)
    expect(tokens).toEqual([before.accessToken, before.accessToken])
  })
})
