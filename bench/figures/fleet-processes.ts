import { setTimeout as sleep } from 'node:timers/promises'
import type { RedisUnderTest } from '../../scripts/dev/redis-server.js'
import { fixed } from '../../scripts/dev/stats.js'
import type { FigureResult } from '../lib/figure.js'
import { runFleetWorkers } from '../lib/fleet-workers.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'

/** Worker processes on one `RedisStore`. */
export const PROCESSES = 4
const REFRESH_CALLS_EACH = 25
const BUCKET = { burstLimit: 10, drainRate: 20 }
const BUCKET_CALLS_EACH = 50
/** Calls of each process before the measured ones: its first calls load and compile code, and one waits. */
const WARM_UP_CALLS_EACH = 4
/** The bar: elapsed at most this many times the floor `(calls - burst) / drainRate`. */
export const MAX_BUCKET_RATIO = 1.1

function redisNode(server: RedisUnderTest): { host: string; port: number } {
  const [node] = server.nodes
  if (!node) throw new Error('the Redis under test has no node')
  return node
}

/**
 * 4 processes on one `RedisStore`, all started from the same pair, expired (`expiresIn: 0`), then 25 concurrent
 * calls each: the refresh requests the emulator saw and the calls that failed.
 */
export async function fleetRefreshFigure(rig: BenchRig, server: RedisUnderTest): Promise<FigureResult> {
  await server.flushAll()
  const pair = await rig.pair({ expiresIn: 0 })
  await rig.emulator.clearLog()
  const run = await runFleetWorkers(PROCESSES, REFRESH_CALLS_EACH, {
    redis: redisNode(server),
    pair,
    secret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
    rateLimit: UNPACED.rateLimit,
  })
  const log = await rig.emulator.getLog()
  const refreshes = log.filter(
    (entry) => entry.kind === 'token' && entry.grantType === 'refresh_token',
  ).length
  const failed = run.failed.length
  return {
    rows: [
      {
        figure: `refresh requests, ${PROCESSES} processes on RedisStore from one expired pair, ${REFRESH_CALLS_EACH} calls each`,
        measured: `${refreshes} refresh, ${failed} failed`,
        bar: 'exactly 1, 0 failed',
        pass: refreshes === 1 && failed === 0 && run.ok === PROCESSES * REFRESH_CALLS_EACH,
      },
    ],
    details: [
      `Fleet refresh: ${refreshes} refresh request, ${run.ok} calls ok, ${failed} failed${failed > 0 ? ` (${[...new Set(run.failed)].join(', ')})` : ''}.`,
    ],
  }
}

/**
 * 4 processes on one `RedisStore` sharing the portal's bucket (`restrictionParams.rateLimit` = the emulator's
 * bucket of 10 draining 20 per second), 50 concurrent calls each: elapsed time against the floor `(200 - 10) / 20` s,
 * and the requests the portal rejected with `QUERY_LIMIT_EXCEEDED`. Each process first makes 4 calls, not counted
 * (a process's first calls load code: the long-running processes of an application have done that); then both
 * buckets are left to empty and the measured calls start together.
 */
export async function fleetBucketFigure(rig: BenchRig, server: RedisUnderTest): Promise<FigureResult> {
  await server.flushAll()
  const calls = PROCESSES * BUCKET_CALLS_EACH
  const pair = await rig.pair()
  await rig.emulator.setRateLimit(BUCKET)
  const warmUp = {
    callsEach: WARM_UP_CALLS_EACH,
    reset: async () => {
      // The shared bucket drains on its own (the store's clock); switching the portal's off empties it.
      await sleep(((PROCESSES * WARM_UP_CALLS_EACH) / BUCKET.drainRate) * 1000 + 500)
      await rig.emulator.setRateLimit(false)
      await rig.emulator.setRateLimit(BUCKET)
      await rig.emulator.clearLog()
    },
  }
  const input = {
    redis: redisNode(server),
    pair,
    secret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
    rateLimit: BUCKET,
  }
  const run = await runFleetWorkers(PROCESSES, BUCKET_CALLS_EACH, input, warmUp).finally(() =>
    rig.emulator.setRateLimit(false),
  )
  const log = await rig.emulator.getLog()
  const rejected = log.filter((entry) => entry.errorCode === 'QUERY_LIMIT_EXCEEDED').length
  const requests = log.filter((entry) => entry.kind === 'rest').length
  const elapsed = run.elapsedMs / 1000
  const floor = (calls - BUCKET.burstLimit) / BUCKET.drainRate
  const ratio = elapsed / floor
  return {
    rows: [
      {
        figure: `pacing, ${PROCESSES} processes sharing a bucket ${BUCKET.burstLimit} draining ${BUCKET.drainRate}/s on RedisStore, ${calls} calls`,
        measured: `${fixed(elapsed, 2)} s = ${fixed(ratio, 3)}x floor, ${rejected} rejected`,
        bar: `<= ${MAX_BUCKET_RATIO}x ${fixed(floor, 1)} s, 0 rejected`,
        pass: ratio <= MAX_BUCKET_RATIO && rejected === 0 && run.failed.length === 0,
        loadSensitive: true,
      },
    ],
    details: [
      `Fleet pacing: ${requests} requests reached the portal in ${fixed(elapsed, 2)} s (floor ${fixed(floor, 1)} s), ${rejected} rejected, ${run.failed.length} failed calls.`,
    ],
  }
}
