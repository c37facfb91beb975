import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PortalFleet, type TokenStore } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type Backend, nodeRedisServerBackend, type Opened, redisServerBackend } from './backends.js'

/** A bucket no request of these tests fills: every request is granted a slot. */
const ROOMY = { burstLimit: 1_000_000, drainRate: 1_000_000 }

/** A slot request as Redis saw it (`MONITOR`): the portal its bucket key names, when the server ran it (ms). */
interface SeenSlot {
  memberId: string
  atMs: number
}

/** The arguments of a command as `MONITOR` prints it, each in double quotes (`1712.5 [0 127.0.0.1:50012] "evalsha" …`). */
const QUOTED_ARG = /"((?:[^"\\]|\\.)*)"/g

/**
 * Records the slot requests Redis gets (scripts naming the bucket key `…{memberId}:bucket`; not the commands those
 * scripts run, which MONITOR shows too) until `stop()`. A script sent again as `EVAL` after `NOSCRIPT` counts once.
 * On node-redis whatever client the store uses: ioredis enters its monitoring mode only in a promise callback after
 * MONITOR's `OK`, so a command another connection runs meanwhile, if its line comes in the same packet as the `OK`, is
 * taken for a reply to nothing ("Command queue state error"); node-redis switches modes before reading on.
 */
async function watchSlots(opened: Opened): Promise<{ seen: SeenSlot[]; stop: () => void }> {
  const [node] = opened.redis!.nodes
  const client = createClient({ socket: { host: node!.host, port: node!.port } })
  await client.connect()
  const seen: SeenSlot[] = []
  await client.monitor((line: string) => {
    const args = Array.from(line.matchAll(QUOTED_ARG), (match) => match[1]!)
    if (!/^eval(sha)?$/i.test(args[0] ?? '')) return
    const bucket = args.find((arg) => arg.endsWith(':bucket'))
    const memberId = bucket?.match(/\{([^}]*)\}/)?.[1]
    if (memberId !== undefined && !seen.some((slot) => slot.memberId === memberId))
      seen.push({ memberId, atMs: Number.parseFloat(line) * 1000 })
  })
  return { seen, stop: () => client.destroy() }
}

const backends: Backend[] = [redisServerBackend, nodeRedisServerBackend]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`RedisStore slotBatchMs (${backend.name})`, () => {
    let opened: Opened
    const emulators: PortalEmulator[] = []
    beforeAll(async () => {
      opened = await backend.open()
      for (let index = 0; index < 4; index += 1) emulators.push(await startPortalEmulator())
    }, 60_000)
    afterAll(async () => {
      await Promise.all(emulators.map((emulator) => emulator.close()))
      await opened?.close()
    })

    /**
     * Four calls on four portals of a fleet on a store with `slotBatchMs`: the first after a quiet spell, then three
     * made 40 ms apart. What each slot request waited from its call to Redis, and how far apart the last two got there.
     */
    async function callsOnAFleet(
      slotBatchMs: number,
    ): Promise<{ waitsMs: number[]; lastTwoSpreadMs: number }> {
      const [first] = emulators
      const fleet = new PortalFleet({
        oAuthSecret: { clientId: first!.clientId, clientSecret: first!.clientSecret },
        store: opened.store({ slotBatchMs }),
        logger: createMemoryLogger(),
      })
      try {
        for (const emulator of emulators) await fleet.handleEvent(emulator.installEvent('ONAPPINSTALL'))
        const clients = await Promise.all(emulators.map((emulator) => fleet.get(emulator.memberId)))
        // A quiet spell longer than the window (and than a leased slot lasts): the first request leaves at once.
        await sleep(slotBatchMs + 100)
        const watch = await watchSlots(opened)
        const made: number[] = []
        const call = (index: number) => {
          made[index] = Date.now()
          return clients[index]!.actions.v2.call.make({ method: 'profile' })
        }
        try {
          expect((await call(0)).isSuccess).toBe(true)
          const later: ReturnType<typeof call>[] = []
          for (let index = 1; index < 4; index += 1) {
            later.push(call(index))
            if (index < 3) await sleep(40)
          }
          for (const result of await Promise.all(later)) expect(result.isSuccess).toBe(true)
          // MONITOR reports a command as the server runs it, maybe after its answer came back: wait for the last.
          await expect
            .poll(() => watch.seen.length, { timeout: 5000 })
            .toBeGreaterThanOrEqual(emulators.length)
        } finally {
          watch.stop()
        }
        const seenAt = emulators.map(
          (emulator) => watch.seen.find((slot) => slot.memberId === emulator.memberId)!.atMs,
        )
        return {
          waitsMs: seenAt.map((at, index) => at - made[index]!),
          lastTwoSpreadMs: Math.abs(seenAt[3]! - seenAt[2]!),
        }
      } finally {
        await fleet.destroy()
      }
    }

    it('calls close together: the third, after two gaps under the window, waits for the batch and the fourth reaches Redis with it; without batches each leaves at once', async () => {
      const batched = await callsOnAFleet(400)
      // The first after a quiet spell, the second after one gap of 40 ms and the quiet one: on average not close.
      expect(batched.waitsMs[0]).toBeLessThan(200)
      expect(batched.waitsMs[1]).toBeLessThan(200)
      expect(batched.waitsMs[2]).toBeGreaterThanOrEqual(380)
      expect(batched.lastTwoSpreadMs).toBeLessThan(40)

      const unbatched = await callsOnAFleet(0)
      for (const wait of unbatched.waitsMs) expect(wait).toBeLessThan(200)
      expect(unbatched.lastTwoSpreadMs).toBeGreaterThanOrEqual(30)
    })

    it('requests a little more than the window apart on average leave at once, though every other gap is under it', async () => {
      const store = opened.store({ slotBatchMs: 100 })
      try {
        const waitsMs: number[] = []
        // Gaps of 135 and 70 ms in turn: 102.5 on average, every other one under the window.
        for (const [index, gap] of [0, 135, 70, 135, 70, 135, 70].entries()) {
          if (gap > 0) await sleep(gap)
          const made = performance.now()
          // Not awaited: the next request's gap counts from this one's start.
          void store.takeSlot(`steady-${index}`, ROOMY).then(() => waitsMs.push(performance.now() - made))
        }
        await expect.poll(() => waitsMs.length, { timeout: 5000 }).toBe(7)
        // A request that waited for a batch would take the window, 100 ms; on loopback one that leaves takes a few.
        for (const wait of waitsMs) expect(wait).toBeLessThan(60)
      } finally {
        await store.close()
      }
    })

    it('a batch of 16 leaves as soon as it is full; the 17th waits for the window', async () => {
      const store = opened.store({ slotBatchMs: 1000 })
      try {
        // Two requests in a row: the next comes less than the window after them on average, and waits.
        await store.takeSlot('full-lone-1', ROOMY)
        await store.takeSlot('full-lone-2', ROOMY)
        const started = performance.now()
        const settled = await Promise.all(
          Array.from({ length: 17 }, (_, index) =>
            store.takeSlot(`full-${index}`, ROOMY).then((answer) => ({
              granted: answer.granted,
              afterMs: performance.now() - started,
            })),
          ),
        )
        for (const { granted } of settled) expect(granted).toBeGreaterThanOrEqual(1)
        for (const { afterMs } of settled.slice(0, 16)) expect(afterMs).toBeLessThan(500)
        expect(settled[16]!.afterMs).toBeGreaterThanOrEqual(990)
      } finally {
        await store.close()
      }
    })

    it('on a frozen server a batched request still settles within the command timeout, its batch wait included', async () => {
      const store = opened.store({ slotBatchMs: 1000, commandTimeout: 2000 })
      // Connected and the script known before the server freezes; the next request joins a batch.
      // Two requests in a row: the next comes less than the window after them on average, and waits.
      await store.takeSlot('frozen-lone-1', ROOMY)
      await store.takeSlot('frozen-lone-2', ROOMY)
      opened.redis!.pause()
      const started = performance.now()
      try {
        const failure = await store.takeSlot('frozen-batched', ROOMY).then(
          () => null,
          (error: unknown) => error as Error,
        )
        const settledMs = performance.now() - started
        const limitMs = Number(/no answer within (\d+) ms/.exec(failure?.message ?? '')?.[1])
        // About a second in the batch, and what was left of the 2 s for the command: not 1 s + 2 s.
        expect(limitMs).toBeGreaterThan(0)
        expect(limitMs).toBeLessThanOrEqual(1001)
        expect(settledMs).toBeGreaterThanOrEqual(1900)
        expect(settledMs).toBeLessThan(2700)
      } finally {
        opened.redis!.resume()
        await store.close()
      }
    })

    it('close() sends the requests still waiting for their batch', async () => {
      const store = opened.store({ slotBatchMs: 1000 })
      // Two requests in a row: the next comes less than the window after them on average, and waits.
      await store.takeSlot('closing-lone-1', ROOMY)
      await store.takeSlot('closing-lone-2', ROOMY)
      const started = performance.now()
      const waiting = store.takeSlot('closing-waiting', ROOMY)
      await store.close()
      expect((await waiting).granted).toBeGreaterThanOrEqual(1)
      expect(performance.now() - started).toBeLessThan(500)
    })

    it('property: whatever the gaps between requests, each is answered once, and they reach Redis in the order they were made', async () => {
      const store: TokenStore = opened.store({ slotBatchMs: 30 })
      let run = 0
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 12 }),
            async (gaps) => {
              run += 1
              const ids = gaps.map((_, index) => `order-${run}-${index}`)
              const watch = await watchSlots(opened)
              try {
                const answers: Array<Promise<number>> = []
                for (const [index, gap] of gaps.entries()) {
                  if (gap > 0) await sleep(gap)
                  answers.push(store.takeSlot(ids[index]!, ROOMY).then((answer) => answer.granted))
                }
                for (const granted of await Promise.all(answers)) expect(granted).toBeGreaterThanOrEqual(1)
                // As in callsOnAFleet: wait until MONITOR reported the last one.
                await expect
                  .poll(() => watch.seen.filter((slot) => ids.includes(slot.memberId)).length, {
                    timeout: 5000,
                  })
                  .toBe(ids.length)
              } finally {
                watch.stop()
              }
              expect(watch.seen.map((slot) => slot.memberId).filter((id) => ids.includes(id))).toEqual(ids)
            },
          ),
          { numRuns: 15 },
        )
      } finally {
        await store.close()
      }
    }, 60_000)
  })
}
