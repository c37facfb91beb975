/**
 * What a client on a `RedisStore` does while Redis fails it, the figures of docs/redis.md, "Faults": how long
 * `refreshAuth()` takes to fail and with what, what ten calls made at once after the access token expired get
 * (each with the default timeout, 30 s), whether any refresh request left, and how soon a call succeeds once Redis
 * is back. Run: `npx tsx scripts/dev/redis-fault-figures.ts <fault>` (needs `redis-server`), where `<fault>` is
 *
 * - `read-only` (the default): Redis answers every write with READONLY (made a replica of a master nobody listens on,
 *   as an ioredis client left on an old master after a failover sees it); back with `REPLICAOF NO ONE`;
 * - `stall`: Redis answers nothing (SIGSTOP: a frozen host), each command gives up after `commandTimeout` (5 s);
 *   back with SIGCONT.
 */
import { Redis } from 'ioredis'
import { PortalOAuth } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { chosenFault, type RedisFault } from './redis-fault-choice.js'
import { freePort, startRedisServer } from './redis-server.js'
import { runMain } from './run-main.js'

/** Ten calls at once. */
const CALLS = 10

const FAULTS: Record<string, RedisFault> = {
  'read-only': {
    // A replica of a master nobody listens on: reads are served, every write answers READONLY.
    begin: async (redis) => {
      await redis.cli(['REPLICAOF', '127.0.0.1', String(await freePort())])
    },
    end: async (redis) => {
      await redis.cli(['REPLICAOF', 'NO', 'ONE'])
    },
  },
  stall: {
    begin: async (redis) => redis.pause(),
    end: async (redis) => redis.resume(),
  },
}

/** An error as the figures show it: its code, then its message. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`
}

/** How long `work` took, ms, and how it ended. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; outcome: string }> {
  const started = performance.now()
  const outcome = await work().then(
    () => 'ok',
    (error: unknown) => describeError(error),
  )
  return { ms: Math.round(performance.now() - started), outcome }
}

async function main(): Promise<number> {
  const chosen = chosenFault(FAULTS, 'read-only')
  if (!chosen) return 2
  const { name, fault } = chosen
  const redis = await startRedisServer()
  const emulator = await startPortalEmulator()
  const client = new Redis({ host: redis.nodes[0]!.host, port: redis.nodes[0]!.port, lazyConnect: false })
  client.on('error', () => undefined)
  const store = new RedisStore(client)
  const quiet = { debug() {}, info() {}, warn() {}, error() {} }
  const portal = new PortalOAuth(
    emulator.issueAuthParams(),
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { store, logger: quiet },
  )
  try {
    // The first look at the store seeds it while it takes writes.
    const first = await portal.actions.v2.call.make({ method: 'profile' })
    console.log(`before: a call ${first.isSuccess ? 'succeeded' : 'failed'}`)
    await fault.begin(redis)
    console.log(`Redis fails: ${name}`)
    const refresh = await timed(() => portal.auth.refreshAuth())
    console.log(`refreshAuth(): ${refresh.ms} ms, ${refresh.outcome}`)
    emulator.expireAccessTokens()
    const calls = await Promise.all(
      Array.from({ length: CALLS }, () =>
        timed(() => portal.actions.v2.call.make({ method: 'profile', requestId: 'x' })),
      ),
    )
    const failed = calls.filter((call) => call.outcome !== 'ok')
    const slowest = Math.max(...calls.map((call) => call.ms))
    console.log(`${CALLS} calls after expiry: ${failed.length} failed, the slowest settled in ${slowest} ms`)
    for (const outcome of new Set(failed.map((call) => call.outcome))) console.log(`  ${outcome}`)
    console.log(`refresh requests while Redis fails: ${emulator.log.refreshRequests().length}`)
    await fault.end(redis)
    const after = await timed(async () => {
      const result = await portal.actions.v2.call.make({ method: 'profile', requestId: 'x' })
      if (!result.isSuccess) throw new Error(result.getErrorMessages().join('; '))
    })
    console.log(`Redis back: a call ${after.outcome} in ${after.ms} ms`)
    console.log(`refresh requests in all: ${emulator.log.refreshRequests().length}`)
    return 0
  } finally {
    await fault.end(redis).catch(() => undefined)
    await portal.destroy()
    await store.close()
    client.disconnect()
    await emulator.close()
    await redis.stop()
  }
}

runMain(main)
