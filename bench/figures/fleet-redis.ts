import { Redis } from 'ioredis'
import type { PortalOAuth, TokenStore } from '../../src/index.js'
import { redisInstalled, startRedisServer } from '../../test/redis/redis-server.js'
import { runChild } from '../lib/child.js'
import type { FigureResult, FigureRow } from '../lib/figure.js'
import { lib, redis } from '../lib/package.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'
import { fixed, median } from '../lib/stats.js'

/** The bar: client CPU per call with `RedisStore` at most this many times that with `MemoryStore`. */
const MAX_STORE_RATIO = 1.3
/** The bar: 4 processes sharing a bucket finish within this share above the bucket's floor. */
const MAX_PACING = 1.1
const PROCESSES = 4

interface WorkerOutcome {
  ok: number
  failed: number
  firstSentAt: number
  lastDoneAt: number
}

/** Client CPU per call (this process only: the emulator and Redis run in their own), µs. */
async function cpuPerCall(portal: PortalOAuth, calls: number, concurrency: number): Promise<number> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1
      const result = await portal.actions.v2.call.make({ method: 'crm.item.get', params: { id: 1 } })
      if (!result.isSuccess) throw new Error(`fleet cpu: ${result.getErrorMessages().join('; ')}`)
    }
  }
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / calls
}

async function storeCpu(rig: BenchRig, port: number): Promise<FigureRow[]> {
  const connection = new Redis(port, '127.0.0.1')
  const stores: Array<[string, TokenStore]> = [
    ['MemoryStore', new lib.MemoryStore()],
    ['RedisStore', new redis.RedisStore(connection)],
  ]
  const portals = await Promise.all(
    stores.map(([, store]) => rig.client({ store, restrictionParams: UNPACED })),
  )
  const samples = { sequential: [[], []] as number[][], concurrent: [[], []] as number[][] }
  try {
    for (const portal of portals) await cpuPerCall(portal, 100, 8)
    for (let round = 0; round < 5; round += 1) {
      for (const [index, portal] of portals.entries()) {
        samples.sequential[index]!.push(await cpuPerCall(portal, 200, 1))
        samples.concurrent[index]!.push(await cpuPerCall(portal, 800, 32))
      }
    }
  } finally {
    await Promise.all(portals.map((portal) => portal.destroy()))
    await (stores[1]![1] as TokenStore).close()
    connection.disconnect()
  }
  return (['sequential', 'concurrent'] as const).map((mode) => {
    const [memory, shared] = samples[mode].map(median) as [number, number]
    const ratio = shared / memory
    return {
      figure: `CPU per call, RedisStore against MemoryStore, ${mode === 'sequential' ? 'sequential' : '32 concurrent'}`,
      measured: `${fixed(shared, 0)} us vs ${fixed(memory, 0)} us = ${fixed(ratio, 2)}x`,
      bar: `<= ${MAX_STORE_RATIO}x`,
      pass: ratio <= MAX_STORE_RATIO,
    }
  })
}

async function workers(rig: BenchRig, port: number, calls: number, extra: object): Promise<WorkerOutcome[]> {
  const pair = await rig.pair()
  const secret = { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret }
  // Every worker starts its calls at once, after all of them have loaded.
  const startAt = Date.now() + 4_000
  return Promise.all(
    Array.from({ length: PROCESSES }, () =>
      runChild<WorkerOutcome>('fleet-worker', { port, pair, secret, calls, startAt, ...extra }),
    ),
  )
}

async function oneExpiredPair(rig: BenchRig, port: number): Promise<FigureRow> {
  await rig.emulator.expireAccessTokens()
  await rig.emulator.clearLog()
  const pair = await rig.pair()
  const secret = { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret }
  const expired = { ...pair, expires: Math.floor(Date.now() / 1000) - 60 }
  const startAt = Date.now() + 4_000
  const done = await Promise.all(
    Array.from({ length: PROCESSES }, () =>
      runChild<WorkerOutcome>('fleet-worker', { port, pair: expired, secret, calls: 25, startAt }),
    ),
  )
  const log = await rig.emulator.getLog()
  const refreshes = log.filter(
    (entry) => entry.kind === 'token' && entry.grantType === 'refresh_token',
  ).length
  const failed = done.reduce((sum, outcome) => sum + outcome.failed, 0)
  return {
    figure: `refresh requests, ${PROCESSES} processes on RedisStore from one expired pair, 25 calls each`,
    measured: `${refreshes} refresh, ${failed} failed`,
    bar: 'exactly 1, 0 failed',
    pass: refreshes === 1 && failed === 0,
  }
}

async function sharedBucket(rig: BenchRig, port: number): Promise<FigureRow> {
  const rateLimit = { burstLimit: 10, drainRate: 10 }
  const calls = 25
  await rig.emulator.setRateLimit(rateLimit)
  try {
    await rig.emulator.clearLog()
    const done = await workers(rig, port, calls, { rateLimit })
    const log = await rig.emulator.getLog()
    const rejected = log.filter((entry) => entry.errorCode === 'QUERY_LIMIT_EXCEEDED').length
    const total = PROCESSES * calls
    const floor = ((total - rateLimit.burstLimit) / rateLimit.drainRate) * 1000
    const elapsed =
      Math.max(...done.map((outcome) => outcome.lastDoneAt)) -
      Math.min(...done.map((outcome) => outcome.firstSentAt))
    const failed = done.reduce((sum, outcome) => sum + outcome.failed, 0)
    return {
      figure: `pacing, ${PROCESSES} processes sharing one bucket on RedisStore (${total} calls, bucket ${rateLimit.burstLimit} draining ${rateLimit.drainRate}/s)`,
      measured: `${fixed(elapsed / 1000, 2)} s = ${fixed(elapsed / floor, 3)}x floor, ${rejected} rejected, ${failed} failed`,
      bar: `<= ${MAX_PACING}x ${fixed(floor / 1000, 1)} s, 0 rejected`,
      pass: elapsed / floor <= MAX_PACING && rejected === 0 && failed === 0,
    }
  } finally {
    await rig.emulator.setRateLimit(false)
  }
}

/**
 * The fleet on Redis: CPU per call with `RedisStore` against `MemoryStore`, 4 processes from one expired pair, and
 * 4 processes sharing one bucket, against the emulator in its own process and a throwaway `redis-server`.
 */
export async function fleetRedisFigure(rig: BenchRig): Promise<FigureResult> {
  if (!redisInstalled) {
    return {
      rows: [
        {
          figure: 'fleet figures on RedisStore',
          measured: 'not run: redis-server not found (apt-get install redis-server)',
          bar: 'n/a',
          pass: true,
        },
      ],
      details: [],
    }
  }
  const server = await startRedisServer()
  try {
    const port = server.nodes[0]!.port
    const rows = [
      ...(await storeCpu(rig, port)),
      await oneExpiredPair(rig, port),
      await sharedBucket(rig, port),
    ]
    return { rows, details: [] }
  } finally {
    await server.stop()
  }
}
