import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type PortalOAuth, SdkErrorCode } from '../../src/index.js'
import { createFleetRig, destroyed } from './fleet-rig.js'

// When the fleet lets go of a client: idleTimeout after its last get(), not after it was built, and whatever
// happened to the other portals' clients meanwhile.

const rig = createFleetRig()
afterEach(async () => {
  vi.useRealTimers()
  await rig.close()
})

/** Whether `portal` was destroyed, asked without a request (an empty method name is refused before anything). */
async function isDestroyed(portal: PortalOAuth): Promise<boolean> {
  const outcome = await portal.actions.v2.call.make({ unchecked: true, method: '', params: {} }).then(
    () => null,
    (error: { code?: string }) => error.code,
  )
  return outcome === SdkErrorCode.Destroyed
}

/** Ref'd timers: what keeps the process alive. */
function liveTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
}

describe('PortalFleet idle clients', () => {
  it('a client used again within idleTimeout stays held past it; it goes idleTimeout after its last use', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, { idleTimeout: 600 })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const first = await fleet.get(portal.memberId)
    for (let use = 0; use < 8; use += 1) {
      await sleep(150)
      expect(await fleet.get(portal.memberId)).toBe(first)
    }
    // 1.2 s since it was built, twice idleTimeout: still the same client, still working.
    expect((await first.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await destroyed(first)
    expect(await fleet.get(portal.memberId)).not.toBe(first)
  })

  it("a client let go on uninstall leaves the others' idle release running", async () => {
    const one = await rig.portal()
    const other = await rig.portal()
    const fleet = rig.fleet(one, { idleTimeout: 300 })
    await fleet.handleEvent(one.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(other.installEvent('ONAPPINSTALL'))
    await fleet.get(one.memberId)
    const kept = await fleet.get(other.memberId)
    await fleet.handleEvent(one.uninstall())
    await destroyed(kept)
    expect(await fleet.get(other.memberId)).not.toBe(kept)
  })

  it('holding a client keeps no timer that holds the process open', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, { idleTimeout: 60_000 })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = liveTimers()
    await fleet.get(portal.memberId)
    expect(liveTimers()).toBe(before)
  })

  it('one look for idle clients every idleTimeout / 2 for all of them; a client goes at its idleTimeout, no timer is left', async () => {
    // The interval and the clock are fake, every other timer real: the looks happen when the test moves the clock.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] })
    const one = await rig.portal()
    const other = await rig.portal()
    const fleet = rig.fleet(one, { idleTimeout: 1000 })
    await fleet.handleEvent(one.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(other.installEvent('ONAPPINSTALL'))
    expect(vi.getTimerCount()).toBe(0)
    const clients = [await fleet.get(one.memberId), await fleet.get(other.memberId)]
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(999)
    await sleep(50)
    expect(await Promise.all(clients.map(isDestroyed))).toEqual([false, false])
    // The look at 1 000 ms finds both idle for idleTimeout.
    vi.advanceTimersByTime(1)
    // Polled on real time (vi.waitFor would move the fake clock on to the next look).
    for (let look = 0; look < 40 && !(await isDestroyed(clients[1] as PortalOAuth)); look += 1)
      await sleep(50)
    expect(await Promise.all(clients.map(isDestroyed))).toEqual([true, true])
    expect(vi.getTimerCount()).toBe(0)
  })
})
