import { redisInstalled, startRedisServer } from '../../scripts/dev/redis-server.js'
import type { FigureResult } from '../lib/figure.js'
import type { BenchRig } from '../lib/rig.js'
import { fleetCommandsFigure, MAX_COMMANDS_PER_CALL } from './fleet-commands.js'
import { fleetCpuFigure, MAX_STORE_RATIO } from './fleet-cpu.js'
import { fleetHeapFigure } from './fleet-heap.js'
import { fleetBucketFigure, fleetRefreshFigure, MAX_BUCKET_RATIO, PROCESSES } from './fleet-processes.js'

/** The rows of the Redis figures when `redis-server` is missing: not applicable, not missed. */
function withoutRedis(): FigureResult {
  const row = (figure: string, bar: string) => ({
    figure,
    measured: 'redis-server not found',
    bar,
    pass: true,
    notApplicable: true,
  })
  return {
    rows: [
      row('client CPU per call.make on RedisStore', `<= ${MAX_STORE_RATIO}x MemoryStore`),
      row('Redis commands per call through fleet.get(), valid token', `<= ${MAX_COMMANDS_PER_CALL}`),
      row(
        `refresh requests, ${PROCESSES} processes on RedisStore from one expired pair`,
        'exactly 1, 0 failed',
      ),
      row(
        `pacing, ${PROCESSES} processes sharing a bucket on RedisStore`,
        `<= ${MAX_BUCKET_RATIO}x floor, 0 rejected`,
      ),
    ],
    details: ['Fleet: redis-server not found on this machine, the RedisStore figures were not measured.'],
  }
}

/**
 * The `fleet` group: with a throwaway `redis-server` started here and stopped at the end, CPU per call on a
 * `RedisStore` against a `MemoryStore`, Redis commands per call through `fleet.get()`, one expired pair refreshed by 4 processes, and 4 processes sharing a bucket;
 * then the heap per idle portal of one `PortalFleet`.
 */
export async function fleetFigures(rig: BenchRig): Promise<FigureResult> {
  const parts: FigureResult[] = []
  if (redisInstalled) {
    const server = await startRedisServer()
    try {
      parts.push(await fleetCpuFigure(rig, server))
      parts.push(await fleetCommandsFigure(rig, server))
      parts.push(await fleetRefreshFigure(rig, server))
      parts.push(await fleetBucketFigure(rig, server))
    } finally {
      await server.stop()
    }
  } else {
    parts.push(withoutRedis())
  }
  parts.push(await fleetHeapFigure(rig))
  return { rows: parts.flatMap((part) => part.rows), details: parts.flatMap((part) => part.details) }
}
