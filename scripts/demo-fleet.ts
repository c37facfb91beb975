/**
 * `npm run demo:fleet`: an application installed on 3 portals and run by 4 workers. The portal emulators send the
 * install events to a `PortalFleet`, whose pairs have expired by the time the workers start their mixed v2/v3
 * calls; one worker is killed mid-run. Per portal it prints the refresh requests (1), the portal's rejections (0),
 * the calls that succeeded, and whether the pair left in the store still refreshes. Exits 0 when all of that holds.
 *
 * Workers are separate processes on a Redis store when `redis-server` is on the PATH and `RedisStore` is built;
 * otherwise they are 4 fleets in this one process on one `MemoryStore`, and the demo says so.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import {
  createNullLogger,
  MemoryStore,
  PortalFleet,
  PortalOAuth,
  type PortalOAuthSecret,
  type TokenStore,
} from '../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../src/testing/index.js'

const PORTALS = 3
const WORKERS = 4
/** Calls of one worker on one portal: 4 workers stay under the portal's burst of 50. */
const CALLS = 10
/** The killed worker dies after this many of its calls settled. */
const KILL_AFTER = 4

/** A store the workers share, how they run on it, and how to close it. */
interface SharedStore {
  store: TokenStore
  kind: 'memory' | 'redis'
  close(): Promise<void>
}

/** What one worker did on one portal. */
interface WorkerTally {
  ok: number
  failed: number
  /** Calls cut short because their worker was killed. */
  killed: number
}

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((directory) => {
    try {
      accessSync(join(directory, binary), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/**
 * The store of the run. REDIS SWITCH (filled in when `portal-oauth/redis` lands): with `redis-server` on the PATH,
 * start a throwaway server, return `{ store: new RedisStore(client), kind: 'redis', close }`, and `main` runs the
 * workers as processes. Until then every run takes the MemoryStore path.
 */
async function openSharedStore(): Promise<SharedStore> {
  if (onPath('redis-server'))
    console.log('redis-server is on the PATH, but this build has no RedisStore yet: using MemoryStore')
  else console.log('no redis-server on the PATH: using MemoryStore')
  return { store: new MemoryStore(), kind: 'memory', close: async () => {} }
}

/**
 * One worker: on every portal at once, a job loop of mixed calls, each taking the portal's client from the fleet.
 * A worker given `killAfter` dies (its fleet destroyed) once that many of its calls settled; its later jobs fail.
 */
async function runWorker(
  fleet: PortalFleet,
  portals: readonly PortalEmulator[],
  killAfter: number | undefined,
): Promise<Map<string, WorkerTally>> {
  const tallies = new Map(portals.map((portal) => [portal.memberId, { ok: 0, failed: 0, killed: 0 }]))
  let settled = 0
  const call = async (portal: PortalEmulator, index: number, tally: WorkerTally): Promise<void> => {
    try {
      const client = await fleet.get(portal.memberId)
      const result =
        index % 3 === 0
          ? await client.actions.v3.call.make({ method: 'tasks.task.list' })
          : await client.actions.v2.call.make({ method: index % 3 === 1 ? 'profile' : 'user.current' })
      if (result.isSuccess) tally.ok += 1
      else tally.failed += 1
    } catch (error) {
      if ((error as { code?: string }).code === 'JSSDK_CLIENT_DESTROYED') tally.killed += 1
      else tally.failed += 1
    }
    settled += 1
    if (settled === killAfter) await fleet.destroy()
  }
  await Promise.all(
    portals.map(async (portal) => {
      const tally = tallies.get(portal.memberId) as WorkerTally
      for (let index = 0; index < CALLS; index += 1) await call(portal, index, tally)
    }),
  )
  return tallies
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
  const shared = await openSharedStore()
  const logger = createNullLogger()
  try {
    // The web process: the portals POST their install events; the pairs have expired when the workers start.
    const web = new PortalFleet({ oAuthSecret: secret, store: shared.store, logger })
    for (const portal of portals) {
      const { memberId } = await web.handleEvent(portal.installEvent('ONAPPINSTALL', { expiresIn: 0 }))
      console.log(`installed portal ${memberId} (${portal.clientEndpoint}) through handleEvent`)
    }
    await web.destroy()

    console.log(
      shared.kind === 'memory'
        ? `${WORKERS} workers as ${WORKERS} fleets in this one process on one MemoryStore (worker processes need Redis)`
        : `${WORKERS} worker processes on Redis`,
    )
    const workers = Array.from(
      { length: WORKERS },
      () => new PortalFleet({ oAuthSecret: secret, store: shared.store, logger }),
    )
    const tallies = await Promise.all(
      workers.map((fleet, index) =>
        runWorker(fleet, portals, index === WORKERS - 1 ? KILL_AFTER : undefined),
      ),
    )
    console.log(`worker ${WORKERS} killed after ${KILL_AFTER} of its calls settled`)
    await Promise.all(workers.map((fleet) => fleet.destroy()))

    let ok = true
    console.log('')
    console.log(
      'portal                            refreshes  rejections  calls ok  failed  cut short  pair refreshes',
    )
    for (const portal of portals) {
      const refreshes = portal.log.refreshRequests().length
      const rejections = portal.log.rejected().length
      const sum = (key: keyof WorkerTally) =>
        tallies.reduce((total, tally) => total + (tally.get(portal.memberId)?.[key] ?? 0), 0)
      const refreshed = await pairRefreshes(shared.store, portal, secret)
      const line = [
        portal.memberId.padEnd(34),
        String(refreshes).padStart(9),
        String(rejections).padStart(11),
        String(sum('ok')).padStart(9),
        String(sum('failed')).padStart(7),
        String(sum('killed')).padStart(10),
        (refreshed ? 'yes' : 'NO').padStart(15),
      ]
      console.log(line.join(' '))
      ok &&= refreshes === 1 && rejections === 0 && sum('failed') === 0 && sum('ok') > 0 && refreshed
      ok &&= sum('ok') + sum('killed') === WORKERS * CALLS
    }
    console.log(ok ? '\ndemo passed' : '\ndemo FAILED')
    return ok ? 0 : 1
  } finally {
    await shared.close()
    await Promise.all(portals.map((portal) => portal.close()))
  }
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  },
)
