/**
 * `npm run demo:fleet`: an application installed on 3 portals and run by 4 workers. The portal emulators send the
 * install events to a `PortalFleet`, whose pairs have expired by the time the workers start their mixed v2/v3
 * calls; one worker is killed mid-run. Per portal it prints the refresh requests (1), the portal's rejections (0),
 * the calls that succeeded, and whether the pair left in the store still refreshes. Exits 0 when all of that holds.
 *
 * With `redis-server` on the PATH the demo starts a throwaway one (stopped at the end), the pairs go to a
 * `RedisStore`, and the workers are child processes, one of them killed with SIGKILL. Without it the demo says so
 * and the workers are 4 fleets in this one process on one `MemoryStore`, one of them destroyed mid-run.
 */
import { fork } from 'node:child_process'
import { setTimeout } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import {
  createNullLogger,
  MemoryStore,
  PortalFleet,
  PortalOAuth,
  type PortalOAuthSecret,
  type TokenStore,
} from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { type RedisUnderTest, redisInstalled, startRedisServer } from '../dev/redis-server.js'
import { runMain } from '../dev/run-main.js'
import { CALLS, type CallOutcome, runWorker } from './demo-fleet-calls.js'
import type { DemoWorkerInput, FromDemoWorker } from './demo-fleet-worker.js'

const PORTALS = 3
/** How long the installed pairs live, s: an install event's access token must still work when it is proved. */
const INSTALLED_PAIR_LIFETIME_S = 2
const WORKERS = 4
/** The killed worker dies once this many of its calls settled, at least one on every portal. */
const KILL_AFTER = 4
const WORKER_SCRIPT = fileURLToPath(new URL('./demo-fleet-worker.ts', import.meta.url))

/** The store the workers share, the Redis server under it, and how to close both. */
interface SharedStore {
  store: TokenStore
  redis: RedisUnderTest | undefined
  close(): Promise<void>
}

/** What the workers did on one portal. */
interface Tally {
  ok: number
  failed: number
  /** Calls cut short because their worker was killed. */
  killed: number
}

/** Calls per portal, summed over the workers, and the error codes of the failed ones. */
class Tallies {
  readonly #byPortal = new Map<string, Tally>()
  readonly codes = new Set<string>()

  constructor(memberIds: readonly string[]) {
    for (const memberId of memberIds) this.#byPortal.set(memberId, { ok: 0, failed: 0, killed: 0 })
  }

  add(memberId: string, outcome: CallOutcome, code?: string, count = 1): void {
    const tally = this.get(memberId)
    tally[outcome] += count
    if (outcome === 'failed' && code !== undefined) this.codes.add(code)
  }

  get(memberId: string): Tally {
    const tally = this.#byPortal.get(memberId)
    if (!tally) throw new Error(`no portal ${memberId}`)
    return tally
  }
}

/** A throwaway `redis-server` and a `RedisStore` on it when the binary is there, else one `MemoryStore`. */
async function openSharedStore(): Promise<SharedStore> {
  if (!redisInstalled) {
    console.log(
      'no redis-server on the PATH: using MemoryStore in this one process (apt-get install redis-server)',
    )
    return { store: new MemoryStore(), redis: undefined, close: async () => {} }
  }
  const redis = await startRedisServer()
  const [node] = redis.nodes
  console.log(`started a throwaway redis-server on ${node?.host}:${node?.port}`)
  const client = new Redis(node!.port, node!.host)
  const store = new RedisStore(client)
  return {
    store,
    redis,
    close: async () => {
      await store.close()
      client.disconnect()
      await redis.stop()
      console.log('redis-server stopped')
    },
  }
}

/** 4 fleets in this process on one store; the last is destroyed once `KILL_AFTER` of its calls settled. */
async function inProcessWorkers(
  store: TokenStore,
  secret: PortalOAuthSecret,
  memberIds: string[],
  tallies: Tallies,
): Promise<void> {
  console.log(`${WORKERS} workers as ${WORKERS} fleets in this one process on one MemoryStore`)
  const fleets = Array.from(
    { length: WORKERS },
    () => new PortalFleet({ oAuthSecret: secret, store, logger: createNullLogger() }),
  )
  await Promise.all(
    fleets.map((fleet, index) => {
      let settled = 0
      return runWorker(fleet, memberIds, async (memberId, outcome, code) => {
        tallies.add(memberId, outcome, code)
        settled += 1
        if (index === WORKERS - 1 && settled === KILL_AFTER) await fleet.destroy()
      })
    }),
  )
  console.log(`worker ${WORKERS} destroyed after ${KILL_AFTER} of its calls settled`)
  await Promise.all(fleets.map((fleet) => fleet.destroy()))
}

/**
 * 4 worker processes on the Redis store; the last gets SIGKILL once `KILL_AFTER` of its calls settled, at least
 * one on every portal. Its calls that never settled count as cut short.
 */
async function workerProcesses(
  redis: RedisUnderTest,
  secret: PortalOAuthSecret,
  memberIds: string[],
  tallies: Tallies,
): Promise<void> {
  console.log(`${WORKERS} worker processes on RedisStore`)
  const input: DemoWorkerInput = { redis: redis.nodes[0]!, memberIds, secret }
  await Promise.all(
    Array.from({ length: WORKERS }, (_, index) => {
      const victim = index === WORKERS - 1
      const child = fork(WORKER_SCRIPT, [JSON.stringify(input)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      })
      const own = new Map(memberIds.map((memberId) => [memberId, 0]))
      let settled = 0
      let killed = false
      child.on('message', (message: FromDemoWorker) => {
        if (message.type !== 'settled' || killed) return
        tallies.add(message.memberId, message.outcome, message.code)
        own.set(message.memberId, (own.get(message.memberId) ?? 0) + 1)
        settled += 1
        if (victim && settled >= KILL_AFTER && [...own.values()].every((count) => count > 0)) {
          killed = true
          child.kill('SIGKILL')
          console.log(
            `worker process ${index + 1} (pid ${child.pid}) killed with SIGKILL after ${settled} calls`,
          )
        }
      })
      return new Promise<void>((resolve, reject) => {
        child.once('error', reject)
        child.once('exit', (code, signal) => {
          if (killed) {
            for (const [memberId, count] of own) tallies.add(memberId, 'killed', undefined, CALLS - count)
            resolve()
          } else if (code === 0) resolve()
          else reject(new Error(`worker process ${index + 1} exited with ${code ?? signal}`))
        })
      })
    }),
  )
}

/** Whether the pair the store holds for the portal refreshes at the OAuth server (a new client, no store). */
async function pairRefreshes(
  store: TokenStore,
  portal: PortalEmulator,
  secret: PortalOAuthSecret,
): Promise<boolean> {
  const pair = await store.load(portal.memberId)
  if (!pair || pair.refreshToken !== portal.currentRefreshToken) return false
  const client = new PortalOAuth(pair, secret, { logger: createNullLogger() })
  try {
    await client.auth.refreshAuth()
    return true
  } catch {
    return false
  } finally {
    await client.destroy()
  }
}

async function main(): Promise<number> {
  const clientSecret = 'demo-fleet-client-secret-000000000000000'
  const portals = await Promise.all(
    Array.from({ length: PORTALS }, () => startPortalEmulator({ clientSecret })),
  )
  const secret = { clientId: portals[0]?.clientId ?? '', clientSecret }
  const memberIds = portals.map((portal) => portal.memberId)
  const shared = await openSharedStore()
  try {
    // The web process: the portals POST their install events, each proved at the portal's OAuth server while its
    // access token is fresh; the pairs live 2 s and have expired when the workers start.
    const web = new PortalFleet({ oAuthSecret: secret, store: shared.store, logger: createNullLogger() })
    for (const portal of portals) {
      const { memberId } = await web.handleEvent(
        portal.installEvent('ONAPPINSTALL', { expiresIn: INSTALLED_PAIR_LIFETIME_S }),
      )
      console.log(`installed portal ${memberId} (${portal.clientEndpoint}) through handleEvent`)
    }
    await web.destroy()
    await setTimeout((INSTALLED_PAIR_LIFETIME_S + 1) * 1000)

    const tallies = new Tallies(memberIds)
    if (shared.redis) await workerProcesses(shared.redis, secret, memberIds, tallies)
    else await inProcessWorkers(shared.store, secret, memberIds, tallies)

    let ok = true
    console.log('')
    console.log(
      'portal                            refreshes  rejections  calls ok  failed  cut short  pair refreshes',
    )
    for (const portal of portals) {
      const refreshes = portal.log.refreshRequests().length
      const rejections = portal.log.rejected().length
      const tally = tallies.get(portal.memberId)
      const refreshed = await pairRefreshes(shared.store, portal, secret)
      const line = [
        portal.memberId.padEnd(34),
        String(refreshes).padStart(9),
        String(rejections).padStart(11),
        String(tally.ok).padStart(9),
        String(tally.failed).padStart(7),
        String(tally.killed).padStart(10),
        (refreshed ? 'yes' : 'NO').padStart(15),
      ]
      console.log(line.join(' '))
      ok &&= refreshes === 1 && rejections === 0 && tally.failed === 0 && tally.ok > 0 && refreshed
      ok &&= tally.ok + tally.killed === WORKERS * CALLS
    }
    if (tallies.codes.size > 0) console.log(`failed calls: ${[...tallies.codes].join(', ')}`)
    console.log(ok ? '\ndemo passed' : '\ndemo FAILED')
    return ok ? 0 : 1
  } finally {
    await shared.close()
    await Promise.all(portals.map((portal) => portal.close()))
  }
}

runMain(main)
