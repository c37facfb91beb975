import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PortalFleet } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import {
  type Backend,
  nodeRedisServerBackend,
  type Opened,
  redisClusterBackend,
  redisServerBackend,
} from './backends.js'

/** Longer than a leased slot stays usable (40 ms): every call asks the store, the most a call can cost. */
const PAUSE_MS = 60

/** Commands each master ran so far, by name, summed over the masters (`INFO commandstats`). */
async function commandStats(opened: Opened): Promise<Map<string, number>> {
  const totals = new Map<string, number>()
  for (let node = 0; node < opened.redis!.nodes.length; node += 1) {
    const info = await opened.redis!.cli(['INFO', 'commandstats'], node)
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      totals.set(match[1]!, (totals.get(match[1]!) ?? 0) + Number(match[2]))
    }
  }
  return totals
}

/** What ran between two readings, without the readings' own `INFO` commands. */
function ranBetween(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const ran: Record<string, number> = {}
  for (const [name, calls] of after) {
    const delta = calls - (before.get(name) ?? 0)
    if (name !== 'info' && delta > 0) ran[name] = delta
  }
  return ran
}

function total(ran: Record<string, number>): number {
  return Object.values(ran).reduce((sum, calls) => sum + calls, 0)
}

const backends: Backend[] = [redisServerBackend, redisClusterBackend, nodeRedisServerBackend]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`Redis commands per call (${backend.name})`, () => {
    let opened: Opened
    let emulator: PortalEmulator | undefined
    let fleet: PortalFleet | undefined
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      await fleet?.destroy()
      await emulator?.close()
    })
    afterAll(async () => {
      await opened?.close()
    })

    it('fleet.get() then a call on a valid token: one command (the slot); building the client writes nothing', async () => {
      emulator = await startPortalEmulator()
      fleet = new PortalFleet({
        oAuthSecret: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
        store: opened.store(),
        logger: createMemoryLogger(),
      })
      await fleet.handleEvent(emulator.installEvent('ONAPPINSTALL'))
      const { memberId } = emulator
      // The first get() reads the pair and builds the client; the first call takes its slot. Nothing is written.
      const first = await commandStats(opened)
      const built = await fleet.get(memberId)
      expect((await built.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      const building = ranBetween(first, await commandStats(opened))
      // One GET by get(), one inside the slot script; no SET, no publish (a first EVALSHA may be sent again as EVAL).
      expect(building).toMatchObject({ get: 2, hset: 1, time: 1 })
      expect(Object.keys(building).filter((name) => /set$|publish$/.test(name) && name !== 'hset')).toEqual(
        [],
      )
      // Webhook-style work from then on: get() and one call, each time.
      const calls = 20
      await sleep(PAUSE_MS)
      const before = await commandStats(opened)
      for (let index = 0; index < calls; index += 1) {
        const portal = await fleet.get(memberId)
        expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
        await sleep(PAUSE_MS)
      }
      const ran = ranBetween(before, await commandStats(opened))
      // Each call is one EVALSHA (its slot); the commands listed besides it run inside that script.
      expect(ran.evalsha).toBe(calls)
      expect(total(ran) - (ran.evalsha ?? 0)).toBe(calls * 6)
      expect(ran.set ?? 0).toBe(0)
      expect((ran.publish ?? 0) + (ran.spublish ?? 0)).toBe(0)
    })
  })
}
