import { Redis } from 'ioredis'
import type { RedisUnderTest } from '../../scripts/dev/redis-server.js'
import type { PortalOAuth, TokenStore } from '../../src/index.js'
import { type CpuVariant, cpuRounds } from '../lib/cpu.js'
import type { FigureResult } from '../lib/figure.js'
import { lib, redis } from '../lib/package.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'
import { fixed } from '../lib/stats.js'

/** The bar: client CPU per call on a `RedisStore` at most this many times that on a `MemoryStore`. */
export const MAX_STORE_RATIO = 1.3
const CONCURRENCY = 32

async function storeVariant(
  rig: BenchRig,
  name: string,
  store: TokenStore,
  close: () => Promise<void>,
): Promise<CpuVariant> {
  const portal: PortalOAuth = await rig.client({ restrictionParams: UNPACED, store })
  return {
    name,
    call: async () => {
      const result = await portal.actions.v2.call.make({
        unchecked: true,
        method: 'crm.item.get',
        params: { id: 1 },
      })
      if (!result.isSuccess) throw new Error(`${name}: ${result.getErrorMessages().join('; ')}`)
    },
    close: async () => {
      await portal.destroy()
      await close()
    },
  }
}

/**
 * Client CPU per `call.make` on a valid token with a `RedisStore` (one Redis round trip per call: the shared
 * bucket) against a `MemoryStore`, sequential and at 32 concurrent calls, alternating within each round; the ratio
 * is the median of the ratios within the rounds. The bucket is so large that no call waits.
 */
export async function fleetCpuFigure(
  rig: BenchRig,
  server: RedisUnderTest,
  options: { rounds: number; sequentialCalls: number; concurrentCalls: number },
): Promise<FigureResult> {
  const memory = new lib.MemoryStore()
  const [node] = server.nodes
  const client = new Redis(node!.port, node!.host)
  const redisStore = new redis.RedisStore(client)
  const variants = [
    await storeVariant(rig, 'call.make, MemoryStore', memory, () => memory.close()),
    await storeVariant(rig, 'call.make, RedisStore', redisStore, async () => {
      await redisStore.close()
      client.disconnect()
    }),
  ]
  const modes = [
    { label: 'sequential', calls: options.sequentialCalls, concurrency: 1 },
    { label: `${CONCURRENCY} concurrent`, calls: options.concurrentCalls, concurrency: CONCURRENCY },
  ]
  const samples = await cpuRounds(variants, modes, options.rounds)
  const rows = modes.map((mode) => {
    const ratio = samples.ratio(mode.label, 1, 0)
    return {
      figure: `client CPU per call.make on RedisStore, ${mode.label}`,
      measured: `${fixed(samples.us(mode.label, 1))} us, ${fixed(ratio, 2)}x MemoryStore (${fixed(samples.us(mode.label, 0))} us)`,
      bar: `<= ${MAX_STORE_RATIO}x MemoryStore`,
      pass: ratio <= MAX_STORE_RATIO,
      loadSensitive: true,
    }
  })
  return {
    rows,
    details: [
      `Fleet CPU: ${options.rounds} rounds (after one warm-up round) of ${options.sequentialCalls} sequential and ${options.concurrentCalls} concurrent v2 \`crm.item.get\` calls per store, on a valid token; the ratio is the median of the ratios within each round.`,
    ],
  }
}
