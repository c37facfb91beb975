/**
 * What calls on a valid token cost while Redis is unreachable, the figures of docs/redis.md, "When Redis is down":
 * the latency of each call in order (the first against the later ones) of an instance made before the outage and of
 * one made during it, the log lines everything printed meanwhile (as the console prints them), a call that needs a
 * refresh (which waits for Redis: nothing is refreshed without the lock), and how soon the store, that call and the
 * calls' slots go back to Redis once it answers. Every client and store has its defaults. Run:
 * `npx tsx scripts/dev/redis-outage-figures.ts <fault>` (needs `redis-server`), where `<fault>` is
 *
 * - `refused` (the default): Redis killed, nothing on its port; back when it is started again (empty);
 * - `hangs`: Redis frozen (SIGSTOP), connections open and nothing answered; back with SIGCONT.
 *
 * With `--fail-fast`, the client is ioredis with `enableOfflineQueue: false`: commands sent while it is disconnected
 * fail at once instead of waiting in its queue for `commandTimeout`.
 */
import { once } from 'node:events'
import { formatWithOptions } from 'node:util'
import { Redis } from 'ioredis'
import { type LoggerInterface, PortalOAuth } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { chosenFault, type RedisFault } from './redis-fault-choice.js'
import { type RedisUnderTest, startRedisServer } from './redis-server.js'
import { runMain } from './run-main.js'

/** Calls in a row per instance while Redis is out. */
const CALLS = 4

const FAULTS: Record<string, RedisFault> = {
  refused: { begin: (redis) => redis.kill!(), end: (redis) => redis.restart!() },
  hangs: { begin: async (redis) => redis.pause(), end: async (redis) => redis.resume() },
}

/** A logger that keeps what the console would print for each entry at `info` and above, with its level. */
function countingLogger(): LoggerInterface & { lines: () => number; entries: string[] } {
  const entries: string[] = []
  const count =
    (level: string) =>
    (message: string, context?: Record<string, unknown>): void => {
      entries.push(`${level}: ${context === undefined ? message : formatWithOptions({}, message, context)}`)
    }
  return {
    lines: () => entries.reduce((sum, entry) => sum + entry.split('\n').length, 0),
    entries,
    debug() {},
    info: count('info'),
    warn: count('warn'),
    error: count('error'),
  }
}

/** Slot requests Redis has run so far (`EVALSHA` and `EVAL` calls). */
async function scriptCalls(redis: RedisUnderTest): Promise<number> {
  const stats = await redis.cli(['INFO', 'commandstats'])
  let calls = 0
  for (const match of stats.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)) calls += Number(match[1])
  return calls
}

async function main(): Promise<number> {
  const chosen = chosenFault(FAULTS, 'refused')
  if (!chosen) return 2
  const { name, fault } = chosen
  const redis = await startRedisServer()
  const emulator = await startPortalEmulator()
  const failFast = process.argv.includes('--fail-fast')
  const client = new Redis({
    host: redis.nodes[0]!.host,
    port: redis.nodes[0]!.port,
    ...(failFast ? { enableOfflineQueue: false } : {}),
  })
  client.on('error', () => undefined)
  // Without its queue, ioredis refuses commands until it has connected.
  if (failFast) await once(client, 'ready')
  const logger = countingLogger()
  const store = new RedisStore(client, { logger })
  const pair = emulator.issueAuthParams()
  const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
  const portals: PortalOAuth[] = []
  const portal = (): PortalOAuth => {
    const made = new PortalOAuth(pair, secret, { store, logger })
    portals.push(made)
    return made
  }
  const call = async (on: PortalOAuth): Promise<string> => {
    const started = performance.now()
    const result = await on.actions.v2.call.make({ method: 'profile' })
    const ms = performance.now() - started
    return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms${result.isSuccess ? '' : ' (failed)'}`
  }
  let out = false
  try {
    const before = portal()
    await call(before)
    // The same calls with Redis up, for comparison: what the portal's answer itself costs on this machine.
    const up: string[] = []
    for (let index = 0; index < CALLS; index += 1) up.push(await call(before))
    console.log(`Redis up: ${CALLS} calls in a row: ${up.join(', ')}`)
    await fault.begin(redis)
    out = true
    console.log(`Redis ${name}${failFast ? ' (ioredis enableOfflineQueue: false)' : ''}`)
    const held: string[] = []
    for (let index = 0; index < CALLS; index += 1) held.push(await call(before))
    console.log(`instance made before: ${CALLS} calls in a row: ${held.join(', ')}`)
    const during = portal()
    const fresh: string[] = []
    for (let index = 0; index < CALLS; index += 1) fresh.push(await call(during))
    console.log(`instance made during: ${CALLS} calls in a row: ${fresh.join(', ')}`)
    // The portal refuses the access token: the call needs a refresh, which needs the lock, which waits for Redis.
    emulator.expireAccessTokens()
    const refreshing = call(before)
    let settled = 0
    void refreshing.then(() => {
      settled = performance.now()
    })
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    console.log(
      `a call needing a refresh, 6 s later: ${settled ? 'settled' : 'waiting'}, ${emulator.log.refreshRequests().length} refresh request(s)`,
    )
    await fault.end(redis)
    out = false
    const back = performance.now()
    await store.health.whenUp()
    console.log(`Redis back: the store up ${Math.round(performance.now() - back)} ms after Redis was`)
    const outcome = await refreshing
    console.log(
      `  the call needing a refresh settled ${Math.round(settled - back)} ms after Redis was back (it took ${outcome}), ${emulator.log.refreshRequests().length} refresh request(s)`,
    )
    // Calls every 100 ms until one takes its slot in Redis again.
    for (let index = 1; index <= 100; index += 1) {
      const counted = await scriptCalls(redis)
      const took = await call(before)
      if ((await scriptCalls(redis)) > counted) {
        const after = Math.round(performance.now() - back)
        console.log(`  call ${index} (${took}) took its slot in Redis, ${after} ms after Redis was back`)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    console.log(
      `log lines from the outage to this call: ${logger.lines()} in ${logger.entries.length} entries`,
    )
    for (const entry of logger.entries) console.log(`  | ${entry.split('\n').join('\n  | ')}`)
    return 0
  } finally {
    if (out) await fault.end(redis).catch(() => undefined)
    await Promise.all(portals.map((made) => made.destroy()))
    await store.close()
    client.disconnect()
    await emulator.close()
    await redis.stop()
  }
}

runMain(main)
