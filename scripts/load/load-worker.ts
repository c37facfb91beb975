/**
 * One application process of `npm run load:fleet` (run with `node --expose-gc --import tsx`, its input in a file): a `PortalFleet` over
 * one `RedisStore` on one ioredis client (or a `MemoryStore`, for the single-portal baseline). Driven over IPC (see
 * load-protocol.ts): a warm-up round of one call per portal, then the calls phase, each call taking the portal's
 * client with `fleet.get(memberId)`, v2 and v3 calls alternating.
 */
import { readFileSync } from 'node:fs'
import { Redis } from 'ioredis'
import type { PortalFleet as Fleet, TokenStore } from '../../src/index.js'
import { collectWithFinalizers } from '../dev/collect-garbage.js'
import { runSchedule } from './call-schedule.js'
import { emptyLatencies, recordLatency } from './latency-histogram.js'
import type {
  FromLoadWorker,
  LoadWorkerInput,
  ToLoadWorker,
  WorkerCalls,
  WorkerMemory,
} from './load-protocol.js'

/** Warm-up calls in flight at once. */
const WARM_UP_CONCURRENCY = 50
/**
 * After the calls the process waits `SETTLE_MS` (the connections' keep-alive of 4 s ends, their sockets close), then
 * idles `IDLE_MS` more holding its portals: what holding them costs without a call.
 */
const SETTLE_MS = 5000
const IDLE_MS = 2000

/**
 * Commands this process sends to Redis, over every connection (the store's client and its subscriber): counted
 * where ioredis sends them, because the server's own counts take in the commands run inside scripts. A command
 * whose key names an expiring portal (`{memberId}` in a key or channel) is counted apart: loading its pair,
 * refreshing it and waiting for the refresh are what an expiry costs, not what a call on a valid token costs. So is
 * one that names no portal: a connection's own setup (`INFO`, `CLIENT`), once per connection.
 */
const redisCommands = { steady: 0, expiring: 0, portalless: 0 }
const sendCommand = Redis.prototype.sendCommand
Redis.prototype.sendCommand = function countedSendCommand(
  this: Redis,
  ...args: Parameters<Redis['sendCommand']>
) {
  const portal = portalNamed(args[0].args)
  if (portal === null) redisCommands.portalless += 1
  else if (expiringIds.has(portal)) redisCommands.expiring += 1
  else redisCommands.steady += 1
  return sendCommand.apply(this, args)
}

// A rejection nobody awaits is a finding of the run: say what it was before the process ends.
process.on('unhandledRejection', (reason) => {
  console.error('load-worker: unhandled rejection', reason)
  process.exit(1)
})

/** The input, read from the file whose path comes as JSON in `argv[2]` (see load-fleet.ts, `inputFile`). */
const input = JSON.parse(
  readFileSync(JSON.parse(process.argv[2] ?? '""') as string, 'utf8'),
) as LoadWorkerInput

/**
 * The package as users run it (dist/, built by `npm run load:fleet`), or the sources: run through tsx, which keeps
 * every function's name by defining it on the function, each closure holds a few hundred bytes more than built.
 */
const [{ createNullLogger, MemoryStore, PortalFleet }, { RedisStore }] = input.dist
  ? await Promise.all([
      import(new URL('../../dist/src/index.js', import.meta.url).href) as Promise<
        typeof import('../../src/index.js')
      >,
      import(new URL('../../dist/src/redis.js', import.meta.url).href) as Promise<
        typeof import('../../src/redis.js')
      >,
    ])
  : await Promise.all([import('../../src/index.js'), import('../../src/redis.js')])
const expiringIds = new Set(input.expiringIds)

/** The portal a command's key or channel names (`{memberId}`), or `null` when none does. */
function portalNamed(args: ReadonlyArray<unknown>): string | null {
  for (const arg of args) {
    const text = typeof arg === 'string' ? arg : Buffer.isBuffer(arg) ? arg.toString() : ''
    const open = text.indexOf('{')
    const close = text.indexOf('}', open + 1)
    if (open >= 0 && close > open) return text.slice(open + 1, close)
  }
  return null
}

const collect = (globalThis as { gc?: () => void }).gc
if (!collect) throw new Error('load-worker: run with node --expose-gc')

function send(message: FromLoadWorker): void {
  process.send?.(message)
}

/** The process's memory after full collections that let the calls' finalizers run. */
async function memory(): Promise<WorkerMemory> {
  await collectWithFinalizers(collect!)
  const { rss, heapUsed, heapTotal } = process.memoryUsage()
  return { rss, heapUsed, heapTotal }
}

async function openStore(): Promise<{ store: TokenStore; close: () => Promise<void> }> {
  if (input.store.kind === 'memory') {
    const store = new MemoryStore()
    for (const pair of input.store.pairs) await store.replace(pair)
    return { store, close: () => store.close() }
  }
  // Plain ioredis, as docs/redis.md advises when calls are spread over time (here under one in flight on average):
  // auto-pipelining would cost each lone command more than it saves. The store's own slot batches, when asked for,
  // send the calls' slot requests together instead.
  const client = new Redis(input.store.port, input.store.host)
  const store = new RedisStore(client, { slotBatchMs: input.store.slotBatchMs })
  return {
    store,
    close: async () => {
      await store.close()
      client.disconnect()
    },
  }
}

/** The portals called so far: the fleet holds each (its idle timeout is far longer than a run); see {@link preWarm}. */
const touched = new Set<string>()

/** One call on the portal: its client from the fleet, then a v2 or a v3 call; the error code when it failed. */
async function callOnce(fleet: Fleet, memberId: string, index: number): Promise<string | null> {
  touched.add(memberId)
  try {
    const portal = await fleet.get(memberId)
    const result =
      index % 2 === 0
        ? await portal.actions.v2.call.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: 1 } })
        : await portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })
    if (result.isSuccess) return null
    return String((result.getErrors()[0] as { code?: unknown } | undefined)?.code ?? 'unknown')
  } catch (error) {
    return String((error as { code?: unknown }).code ?? (error as Error).name)
  }
}

function countFailure(failed: Record<string, number>, code: string): void {
  failed[code] = (failed[code] ?? 0) + 1
}

async function warmUp(fleet: Fleet, memberIds: readonly string[]): Promise<FromLoadWorker> {
  let ok = 0
  const failed: Record<string, number> = {}
  let next = 0
  const cpu = process.cpuUsage()
  const lane = async (): Promise<void> => {
    while (next < memberIds.length) {
      const index = next
      next += 1
      const code = await callOnce(fleet, memberIds[index]!, index)
      if (code === null) ok += 1
      else countFailure(failed, code)
    }
  }
  await Promise.all(Array.from({ length: WARM_UP_CONCURRENCY }, lane))
  const used = process.cpuUsage(cpu)
  return { type: 'warmed', ok, failed, cpuUs: used.user + used.system }
}

async function callsPhase(
  fleet: Fleet,
  order: Extract<ToLoadWorker, { type: 'go' }>,
): Promise<FromLoadWorker> {
  // A step of the capacity search calls the steady portals only: the expiring ones are not installed yet.
  const memberIds = order.portals === 'steady' ? input.warmUpIds : input.memberIds
  const callsPerInterval = order.portals === 'steady' ? input.warmUpIds.length : input.callsPerInterval
  let ok = 0
  let failedCount = 0
  let steadyCalls = 0
  const failed: Record<string, number> = {}
  const latencies = emptyLatencies()
  const expiringLatencies = emptyLatencies()
  /** The turns (portals, for a fleet) whose call is in flight, and the turns skipped because it still was. */
  const running = new Set<number>()
  let skipped = 0
  const progress = setInterval(() => send({ type: 'progress', ok, failed: failedCount }), 1000)
  const cpu = process.cpuUsage()
  const commandsBefore = { ...redisCommands }
  const started = performance.now()
  let beforeMark: WorkerCalls['beforeMark'] = null
  const mark =
    order.markAtMs === undefined
      ? null
      : setTimeout(() => {
          const used = process.cpuUsage(cpu)
          beforeMark = { cpuUs: used.user + used.system, calls: ok + failedCount }
        }, order.markAtMs)
  await runSchedule({
    callsPerInterval,
    intervalMs: order.intervalMs,
    durationMs: order.durationMs,
    call: async (index) => {
      // A process that cannot keep up skips a portal's turn rather than piling up calls behind it.
      const lane = index % callsPerInterval
      if (running.has(lane)) {
        skipped += 1
        return
      }
      running.add(lane)
      const callStarted = performance.now()
      const memberId = memberIds[index % memberIds.length]!
      const expiring = expiringIds.has(memberId)
      if (!expiring) steadyCalls += 1
      const code = await callOnce(fleet, memberId, index)
      const tookMs = performance.now() - callStarted
      recordLatency(latencies, tookMs)
      if (expiring) recordLatency(expiringLatencies, tookMs)
      running.delete(lane)
      if (code === null) ok += 1
      else {
        failedCount += 1
        countFailure(failed, code)
      }
    },
  })
  const elapsedMs = performance.now() - started
  const used = process.cpuUsage(cpu)
  clearInterval(progress)
  if (mark !== null) clearTimeout(mark)
  return {
    type: 'done',
    ok,
    failed,
    latencies,
    expiringLatencies,
    cpuUs: used.user + used.system,
    elapsedMs,
    skipped,
    redisCommands: {
      steady: redisCommands.steady - commandsBefore.steady,
      expiring: redisCommands.expiring - commandsBefore.expiring,
      portalless: redisCommands.portalless - commandsBefore.portalless,
    },
    steadyCalls,
    beforeMark,
  }
}

async function idleThenMemory(): Promise<FromLoadWorker> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const cpu = process.cpuUsage()
  const started = performance.now()
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS))
  const used = process.cpuUsage(cpu)
  const idleMs = performance.now() - started
  return {
    type: 'memory',
    memory: await memory(),
    held: touched.size,
    idleCpuUs: used.user + used.system,
    idleMs,
  }
}

/** Portals called by a throwaway fleet before the memory is first read (see {@link preWarm}). */
const PRE_WARM_PORTALS = 20

const { store, close } = await openStore()
const makeFleet = (): Fleet =>
  new PortalFleet({
    oAuthSecret: input.secret,
    store,
    logger: createNullLogger(),
    ...(input.restrictionParams ? { restrictionParams: input.restrictionParams } : {}),
  })

/**
 * A few calls through a fleet that is then destroyed: what a process pays once whatever the portals (modules loaded
 * on the first call, the method catalogue, compiled code) is in the memory read before, not counted per portal.
 */
async function preWarm(): Promise<void> {
  const throwaway = makeFleet()
  for (const [index, memberId] of input.warmUpIds.slice(0, PRE_WARM_PORTALS).entries()) {
    await callOnce(throwaway, memberId, index)
    await callOnce(throwaway, memberId, index + 1)
  }
  await throwaway.destroy()
}

await preWarm()
const fleet = makeFleet()

process.on('message', async (message: ToLoadWorker) => {
  if (message.type === 'warm-up') {
    const warmed = await warmUp(fleet, message.portals === 'steady' ? input.warmUpIds : input.expiringIds)
    // The garbage of a round of thousands of calls at once leaves the old generation near its limit: collected now,
    // the full collection it calls for (some 400 ms of marking at 10 000 portals) does not fall on the calls phase's
    // first second in every worker at once.
    if (message.collect) await collectWithFinalizers(collect!)
    send(warmed)
  } else if (message.type === 'go') send(await callsPhase(fleet, message))
  else if (message.type === 'collect') {
    await collectWithFinalizers(collect!)
    send({ type: 'collected' })
  } else if (message.type === 'memory') send(await idleThenMemory())
  else {
    await fleet.destroy()
    await close()
    process.exit(0)
  }
})
send({ type: 'ready', memory: await memory() })
