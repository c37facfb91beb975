/**
 * What `RedisStore({ replicas: 1 })` costs on a master that has no replica (the state of a Sentinel group of a
 * master and one replica after a failover, until the old master comes back): the figures of docs/redis.md, "Fewer
 * replicas than `replicas`". One instance with the defaults (`commandTimeout` 5 s) refreshes five times in a row,
 * then the server gets a replica and it refreshes once more. Run: `npx tsx scripts/dev/redis-replica-figures.ts`
 * (needs `redis-server`).
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { PortalOAuth } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { HOST, startRedisServer, startServer, stopAll } from './redis-server.js'
import { runMain } from './run-main.js'

/** Refreshes made while the master has no replica. */
const REFRESHES = 5

async function main(): Promise<number> {
  const redis = await startRedisServer()
  const emulator = await startPortalEmulator()
  const master = redis.nodes[0]!
  const client = new Redis({ host: master.host, port: master.port })
  client.on('error', () => undefined)
  const lines: string[] = []
  const record = (level: string) => (message: string) => lines.push(`${level}: ${message}`)
  const storeLogger = { debug() {}, info: record('info'), warn: record('warn'), error: record('error') }
  const store = new RedisStore(client, { replicas: 1, logger: storeLogger })
  const quiet = { debug() {}, info() {}, warn() {}, error() {} }
  const portal = new PortalOAuth(
    emulator.issueAuthParams(),
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { store, logger: quiet },
  )
  const dir = await mkdtemp(join(tmpdir(), 'portal-oauth-replica-'))
  const replicas: Array<Awaited<ReturnType<typeof startServer>>['child']> = []
  try {
    // The first call seeds the store: the first write the replicas fall short of.
    const first = performance.now()
    await portal.actions.v2.call.make({ method: 'profile' })
    console.log(`no replica, the first call: ${Math.round(performance.now() - first)} ms`)
    for (let refresh = 1; refresh <= REFRESHES; refresh += 1) {
      const started = performance.now()
      await portal.auth.refreshAuth()
      console.log(`no replica, refresh ${refresh}: ${Math.round(performance.now() - started)} ms`)
    }
    const replica = await startServer(dir, ['--replicaof', HOST, String(master.port)])
    replicas.push(replica.child)
    while (!(await redis.cli(['INFO', 'replication'])).match(/^slave0:.*state=online/m))
      await new Promise((resolve) => setTimeout(resolve, 50))
    const started = performance.now()
    await portal.auth.refreshAuth()
    console.log(`a replica in sync: refresh in ${Math.round(performance.now() - started)} ms`)
    console.log(`refresh requests: ${emulator.log.refreshRequests().length}`)
    console.log(`the store's log:\n  ${lines.join('\n  ')}`)
    return 0
  } finally {
    await portal.destroy()
    await store.close()
    client.disconnect()
    await emulator.close()
    await stopAll(replicas, dir)
    await redis.stop()
  }
}

runMain(main)
