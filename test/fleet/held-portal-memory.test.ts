import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createNullLogger, MemoryStore, PortalFleet } from '../../src/index.js'
import { gcOrSkip, settledHeapAfterFinalizers } from '../actions/heap.js'
import { type FarmChild, startFarmChild } from './farm-child.js'

// The portals are served by an emulator farm in a child process: their state stays out of the heap measured here.

const PORTALS = 2_000
const WARM_UP = 100
/** Calls in flight at once. */
const LANES = 16
/** The fleet's idle connections close this soon after the calls: they are the fleet's, not a held portal's. */
const KEEP_ALIVE_MS = 200
/** The bar of a held portal after its calls (docs/fleet.md, "Memory"). */
const MAX_BYTES_PER_PORTAL = 8 * 1024

let farm: FarmChild | undefined
const fleets: PortalFleet[] = []
afterEach(async () => {
  await Promise.all(fleets.splice(0).map((fleet) => fleet.destroy()))
  await farm?.close()
  farm = undefined
})

/** One call on each portal, v2 and v3 alternating, `LANES` at a time; the codes of the calls that failed. */
async function callEach(fleet: PortalFleet, memberIds: readonly string[]): Promise<string[]> {
  const failed: string[] = []
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < memberIds.length) {
      const index = next
      next += 1
      const portal = await fleet.get(memberIds[index]!)
      const result =
        index % 2 === 0
          ? await portal.actions.v2.call.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: 1 } })
          : await portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })
      if (!result.isSuccess) failed.push(String(result.getErrors()[0]))
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
  return failed
}

/** The fleet and portals of a measurement, warmed up on other portals of the farm. */
async function warmedUp(
  gc: () => void,
): Promise<{ fleet: PortalFleet; measured: string[]; before: number; farm: FarmChild }> {
  farm = await startFarmChild(PORTALS + WARM_UP)
  const running = farm
  const store = new MemoryStore()
  for (const pair of running.pairs) await store.replace(pair)
  const memberIds = running.pairs.map((pair) => pair.memberId)
  const makeFleet = (): PortalFleet => {
    const fleet = new PortalFleet({
      oAuthSecret: running.secret,
      store,
      oauthServers: [running.oauthServer],
      httpOptions: { keepAliveTimeout: KEEP_ALIVE_MS },
      logger: createNullLogger(),
    })
    fleets.push(fleet)
    return fleet
  }
  // Warm-up on other portals, a refresh included: compiled code, the method catalogue and the pools reach their
  // size first.
  const warm = makeFleet()
  const warmIds = memberIds.slice(PORTALS)
  expect(await callEach(warm, warmIds)).toEqual([])
  for (const memberId of warmIds) await (await warm.get(memberId)).auth.refreshAuth()
  await warm.destroy()
  await running.log()
  const fleet = makeFleet()
  return {
    fleet,
    measured: memberIds.slice(0, PORTALS),
    before: await settledHeapAfterFinalizers(gc),
    farm: running,
  }
}

/** Heap per portal since `before`, once the fleet's idle connections closed. */
async function perPortalSince(gc: () => void, before: number): Promise<number> {
  await sleep(KEEP_ALIVE_MS * 3)
  return ((await settledHeapAfterFinalizers(gc)) - before) / PORTALS
}

describe('a held portal after its calls', () => {
  it('2 000 held portals, each after a call, hold at most 8 KB of heap each', async (context) => {
    const gc = gcOrSkip(context)
    if (!gc) return
    const { fleet, measured, before, farm } = await warmedUp(gc)
    expect(await callEach(fleet, measured)).toEqual([])
    const perPortal = await perPortalSince(gc, before)
    // Every portal answered its call with the pair it was built from: no refresh.
    expect(await farm.log()).toEqual({ rest: PORTALS, tokens: 0 })
    // And the fleet still holds each (one client per portal, handed out again without a store read).
    for (const memberId of measured.slice(0, 10))
      expect(await fleet.get(memberId)).toBe(await fleet.get(memberId))
    expect(perPortal, `${perPortal.toFixed(0)} B per held portal`).toBeLessThan(MAX_BYTES_PER_PORTAL)
  }, 120_000)

  it('2 000 held portals, each after a call that refreshed its pair, hold at most 8 KB of heap each', async (context) => {
    const gc = gcOrSkip(context)
    if (!gc) return
    const { fleet, measured, before, farm } = await warmedUp(gc)
    expect(await callEach(fleet, measured)).toEqual([])
    await farm.expire()
    // Each call is answered expired_token, refreshes the pair and is sent again with the new token.
    expect(await callEach(fleet, measured)).toEqual([])
    const perPortal = await perPortalSince(gc, before)
    expect(await farm.log()).toEqual({ rest: PORTALS * 2, tokens: PORTALS })
    for (const memberId of measured.slice(0, 10)) expect((await fleet.get(memberId)).tokenState).toBe('valid')
    expect(perPortal, `${perPortal.toFixed(0)} B per held portal`).toBeLessThan(MAX_BYTES_PER_PORTAL)
  }, 120_000)
})
