/**
 * What one expiry costs each process of a fleet, apart from its calls: `node --import tsx scripts/load/refresh-wave.ts`
 * (after `npm run build`). It takes the load test's options (load-options.ts), of which it uses the portals (1 000 by
 * default), the processes (4) and the workers' flags. The portals, all expiring, are installed on one Redis and
 * called by worker processes of `npm run load:fleet`, each a `PortalFleet` on the built package, in rounds of one
 * call per portal, 50 at a time per process: the clients' take-up, two rounds on valid pairs, a round once every pair
 * entered the eager-refresh window (each portal refreshed once, by one process, and adopted by the others), and two
 * rounds on valid pairs again. Prints each round's client CPU per portal and process, then the CPU an expiry added:
 * the expired round less the valid round after it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { DEFAULT_ACCESS_TOKEN_SETTINGS } from '../../machines/access-token.types.js'
import { createNullLogger, PortalFleet } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { startRedisServer } from '../dev/redis-server.js'
import { runMain } from '../dev/run-main.js'
import { loadOptions } from './load-options.js'
import { answers, failedCalls, type LoadWorker, startWorkers, warmUpRound } from './load-workers.js'
import { PortalFarm } from './portal-farm.js'

/** How long the pairs stay out of the eager-refresh window after they are installed, s: the take-up fits in it. */
const VALID_S = 15

/** One round of one call per portal on every worker; the client CPU per portal of each, us. */
async function round(workers: readonly LoadWorker[], label: string, portals: number): Promise<number[]> {
  const perPortal = (await warmUpRound(workers, 'expiring')).map((answer) => {
    const failed = failedCalls(answer)
    if (failed > 0) throw new Error(`${label}: ${failed} calls failed (${JSON.stringify(answer.failed)})`)
    return answer.cpuUs / portals
  })
  console.log(`${label.padEnd(22)} ${perPortal.map((us) => `${us.toFixed(0).padStart(6)} us`).join('')}`)
  return perPortal
}

const mean = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length

async function main(): Promise<number> {
  const options = loadOptions(process.env, process.argv.slice(2))
  const { portals, processes } = options
  const redis = await startRedisServer()
  const [node] = redis.nodes
  const client = new Redis(node!.port, node!.host)
  const farm = await PortalFarm.start(portals)
  const installer = new PortalFleet({
    oAuthSecret: farm.secret,
    store: new RedisStore(client),
    logger: createNullLogger(),
  })
  const workers: LoadWorker[] = []
  try {
    workers.push(
      ...startWorkers(options, {
        store: { kind: 'redis', host: node!.host, port: node!.port, slotBatchMs: options.slotBatchMs },
        secret: farm.secret,
        memberIds: farm.memberIds,
        warmUpIds: [],
        expiringIds: farm.memberIds,
        callsPerInterval: portals,
        dist: true,
      }),
    )
    await answers(workers, 'ready')
    await farm.install(
      installer,
      farm.emulators,
      DEFAULT_ACCESS_TOKEN_SETTINGS.eagerRefreshMs / 1000 + VALID_S,
    )
    const installed = performance.now()
    console.log(
      `${portals} portals x ${processes} processes, one call per portal per round; client CPU per portal, each process:`,
    )
    await round(workers, 'take-up', portals)
    await round(workers, 'valid', portals)
    await round(workers, 'valid', portals)
    const left = VALID_S * 1000 + 500 - (performance.now() - installed)
    if (left <= 0) throw new Error(`the take-up took longer than the ${VALID_S} s the pairs stay valid`)
    farm.resetCounts()
    await sleep(left)
    const expired = await round(workers, 'in the refresh window', portals)
    const after = await round(workers, 'valid', portals)
    await round(workers, 'valid', portals)
    const refreshes = [...farm.counts().refreshes.values()].reduce((sum, requests) => sum + requests, 0)
    console.log(
      `refresh requests: ${refreshes} for ${portals} portals; CPU an expiry added per process: ${(mean(expired) - mean(after)).toFixed(0)} us`,
    )
    return refreshes === portals ? 0 : 1
  } finally {
    await Promise.all(workers.map((worker) => worker.stop({ type: 'exit' })))
    await installer.destroy()
    client.disconnect()
    await farm.close()
    await redis.stop()
  }
}

runMain(main)
