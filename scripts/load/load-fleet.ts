/**
 * `npm run load:fleet`: an application installed on many portals, run by several processes sharing one Redis.
 *
 * A throwaway `redis-server` and an emulator farm (every portal behind two loopback listeners) are started here; the
 * portals are installed through their `ONAPPINSTALL` events by a `PortalFleet` on a `RedisStore`. Each worker process
 * (a `PortalFleet` over one `RedisStore` on one ioredis client) calls every installed portal once (the warm-up, not
 * measured) and collects its heap, then calls each portal once per interval for the duration. The expiring share of
 * the portals is installed after that warm-up with a pair that enters the clients' eager-refresh window halfway
 * through `--duration`, and called once by each process before the calls. Afterwards as many processes each call one
 * portal on a `MemoryStore` as many times per second, for as long as the calls before that point: the baseline of the
 * CPU ratio, which compares the two over those spans. Prints a progress line to stderr every few
 * seconds and the table to stdout; exits 1 when a call failed or an expired portal was not refreshed exactly once,
 * and on a missed bar only with `LOAD_STRICT=1`. Options: load-options.ts.
 */
import { cpus } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { DEFAULT_ACCESS_TOKEN_SETTINGS } from '../../machines/access-token.types.js'
import { createNullLogger, PortalFleet } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { collectWithFinalizers } from '../dev/collect-garbage.js'
import { type RedisUnderTest, redisInstalled, startRedisServer } from '../dev/redis-server.js'
import { runMain } from '../dev/run-main.js'
import { type Capacity, type CapacityStep, searchCapacity } from './capacity-search.js'
import { latencyPercentile, mergeLatencies } from './latency-histogram.js'
import {
  durationAtInterval,
  LOAD_USAGE,
  LoadOptionError,
  type LoadOptions,
  loadOptions,
  refreshLeadS,
} from './load-options.js'
import type { LoadWorkerInput, ToLoadWorker, WorkerCalls, WorkerMemory } from './load-protocol.js'
import { formatTable, type LoadResult, loadReport } from './load-report.js'
import {
  answers,
  failedCalls,
  type LoadWorker,
  startWorkers,
  WORKER_ENV,
  warmUpRound,
} from './load-workers.js'
import { PortalFarm } from './portal-farm.js'
import { watchPauses } from './process-pauses.js'
import { bytesPerPortal, commandsBetween, readRedis } from './redis-figures.js'

/** Progress lines on stderr, this often. */
const PROGRESS_MS = 3000
/** Portals whose Redis keys are measured with `MEMORY USAGE`. */
const SAMPLED_PORTALS = 50
/** The name of the baseline's run in the progress lines. */
const BASELINE = 'baseline, 1 portal on MemoryStore per process'

/** The first step of the capacity search, calls per second over every process (lower under a low ceiling). */
const FIRST_STEP_PER_S = 200
/**
 * The portals' buckets drain 2 requests a second (the emulator's default): the search asks the steady portals at most
 * twice that, so that a step of 5 s takes 10 of a bucket's 50 and the client never waits for its bucket in a step.
 */
const PORTAL_DRAIN_PER_S = 2
const CEILING_OVER_DRAIN = 2

/** An order to run calls: the calls phase, or a step of the capacity search. */
type GoOrder = Extract<ToLoadWorker, { type: 'go' }>

/** The baseline's portal paces nothing: one portal takes the calls of a whole fleet process. */
const UNPACED = { rateLimit: { burstLimit: 1_000_000, drainRate: 1_000_000 } }

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

/** Busy CPU time of the whole machine so far, ms. */
function machineBusyMs(): number {
  return cpus().reduce((sum, cpu) => sum + cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq, 0)
}

/** Evenly spread indexes of `share` of `count` items. */
function spreadIndexes(count: number, share: number): Set<number> {
  const chosen = Math.round(count * share)
  return new Set(Array.from({ length: chosen }, (_, index) => Math.floor((index * count) / chosen)))
}

/**
 * One warm-up round of `workers` on their steady or their expiring portals, each collecting its heap after it; the
 * calls that failed, logged.
 */
async function warmUp(workers: readonly LoadWorker[], portals: 'steady' | 'expiring'): Promise<number> {
  const warmed = await warmUpRound(workers, portals, true)
  const failed = warmed.reduce((sum, answer) => sum + failedCalls(answer), 0)
  if (failed > 0)
    log(
      `warm-up (${portals}): ${failed} calls failed (${JSON.stringify(warmed.map((answer) => answer.failed))})`,
    )
  return failed
}

/** Runs `order` (the calls phase or a step of the capacity search) in `workers`, printing progress; their reports. */
async function callsPhase(
  label: string,
  workers: readonly LoadWorker[],
  progress: ReadonlyArray<{ ok: number; failed: number }>,
  order: GoOrder,
  everySecond?: () => void,
): Promise<WorkerCalls[]> {
  const started = performance.now()
  const done = answers(workers, 'done')
  for (const worker of workers) worker.send(order)
  const timer = setInterval(() => {
    const ok = progress.reduce((sum, worker) => sum + worker.ok, 0)
    const failed = progress.reduce((sum, worker) => sum + worker.failed, 0)
    const elapsed = (performance.now() - started) / 1000
    log(`${label}: ${elapsed.toFixed(0)} of ${order.durationMs / 1000} s, ${ok} calls ok, ${failed} failed`)
  }, PROGRESS_MS)
  const harvest = everySecond ? setInterval(everySecond, 1000) : undefined
  try {
    return await done
  } finally {
    clearInterval(timer)
    if (harvest) clearInterval(harvest)
  }
}

/**
 * This process's `gc()`: it serves every portal, and a full collection of the farm's heap (some 100 MB at 10 000
 * portals) left to fall where it will stalls every call in flight, in one step of the capacity search or another.
 */
const collectFarm = (globalThis as { gc?: () => void }).gc

/**
 * Every worker collects its heap (full collections that let finalizers run), and so does the farm, so that no step
 * inherits the last's garbage.
 */
async function collectHeaps(workers: readonly LoadWorker[]): Promise<void> {
  for (const worker of workers) worker.send({ type: 'collect' })
  await Promise.all([answers(workers, 'collected'), collectWithFinalizers(collectFarm!)])
}

/** The interval at which `processes` processes calling each of `portals` once per interval make `perS` calls a second. */
function intervalFor(portals: number, processes: number, perS: number): number {
  return Math.max(1, Math.round((portals * processes * 1000) / perS))
}

/**
 * The capacity search on the steady portals (see capacity-search.ts): steps of `options.stepS` seconds, each followed
 * by a collection of every worker's heap; each step logged.
 */
async function capacityOf(
  workers: readonly LoadWorker[],
  progress: ReadonlyArray<{ ok: number; failed: number }>,
  steadyPortals: number,
  options: LoadOptions,
  harvest: () => void,
): Promise<Capacity> {
  const ceilingPerS = CEILING_OVER_DRAIN * PORTAL_DRAIN_PER_S * steadyPortals
  const step = async (askedPerS: number): Promise<CapacityStep> => {
    const intervalMs = intervalFor(steadyPortals, options.processes, askedPerS)
    const order: GoOrder = { type: 'go', portals: 'steady', intervalMs, durationMs: options.stepS * 1000 }
    const reports = await callsPhase(
      `capacity step at ${Math.round(askedPerS)}/s`,
      workers,
      progress,
      order,
      harvest,
    )
    await collectHeaps(workers)
    const calls = sumCalls(reports)
    const latencies = mergeLatencies(reports.map((report) => report.latencies))
    const elapsedS = Math.max(...reports.map((report) => report.elapsedMs)) / 1000
    // The rate the schedule asked, from the interval as rounded to whole ms.
    const asked = (steadyPortals * options.processes * 1000) / intervalMs
    const measured: CapacityStep = {
      askedPerS: asked,
      madePerS: (calls.ok + calls.failed) / elapsedS,
      skipped: calls.skipped,
      turns: calls.ok + calls.failed + calls.skipped,
      failed: calls.failed,
      p50Ms: latencyPercentile(latencies, 0.5),
      p99Ms: latencyPercentile(latencies, 0.99),
    }
    log(
      `capacity step: asked ${Math.round(asked)}/s, made ${Math.round(measured.madePerS)}/s, ${measured.skipped} turns skipped, ${measured.failed} failed, p50 / p99 ${measured.p50Ms.toFixed(1)} / ${measured.p99Ms.toFixed(1)} ms`,
    )
    return measured
  }
  const capacity = await searchCapacity(step, Math.min(FIRST_STEP_PER_S, ceilingPerS / 4), ceilingPerS)
  log(
    `capacity: ${Math.round(capacity.perS)} calls/s carried (p99 within ${capacity.kneeMs.toFixed(1)} ms, set by ${capacity.referenceP99Ms.toFixed(1)} ms at ${Math.round(capacity.referencePerS)}/s)${capacity.notCarriedPerS === null ? ', the ceiling of the search' : `, ${Math.round(capacity.notCarriedPerS)}/s not`}`,
  )
  return capacity
}

/** CPU of idle workers, ms per second, averaged over them. */
function idleCpu(answers: ReadonlyArray<{ idleCpuUs: number; idleMs: number }>): number {
  return answers.reduce((sum, answer) => sum + answer.idleCpuUs / answer.idleMs, 0) / answers.length
}

/** Per held portal: the workers' memory after the run minus before, averaged over the workers. */
function perPortal(
  before: WorkerMemory[],
  after: Array<{ memory: WorkerMemory; held: number }>,
  key: 'rss' | 'heapUsed',
): number {
  const each = after.map(
    (worker, index) => (worker.memory[key] - before[index]![key]) / Math.max(1, worker.held),
  )
  return each.reduce((sum, value) => sum + value, 0) / each.length
}

function sumCalls(reports: readonly WorkerCalls[]): {
  ok: number
  failed: number
  skipped: number
  cpuUs: number
  steadyCalls: number
  steadyCommands: number
  expiringCommands: number
  portallessCommands: number
} {
  return reports.reduce(
    (sum, report) => ({
      ok: sum.ok + report.ok,
      failed: sum.failed + Object.values(report.failed).reduce((all, calls) => all + calls, 0),
      skipped: sum.skipped + report.skipped,
      cpuUs: sum.cpuUs + report.cpuUs,
      steadyCalls: sum.steadyCalls + report.steadyCalls,
      steadyCommands: sum.steadyCommands + report.redisCommands.steady,
      expiringCommands: sum.expiringCommands + report.redisCommands.expiring,
      portallessCommands: sum.portallessCommands + report.redisCommands.portalless,
    }),
    {
      ok: 0,
      failed: 0,
      skipped: 0,
      cpuUs: 0,
      steadyCalls: 0,
      steadyCommands: 0,
      expiringCommands: 0,
      portallessCommands: 0,
    },
  )
}

function addCodes(into: Record<string, number>, from: Record<string, number>): void {
  for (const [code, calls] of Object.entries(from)) into[code] = (into[code] ?? 0) + calls
}

/** The fleet part: every figure of the table but the baseline's. */
async function fleetRun(
  options: LoadOptions,
  redis: RedisUnderTest,
): Promise<
  Omit<
    LoadResult,
    'baselineCpuPerCallMs' | 'baselineCalls' | 'baselineIdleCpuMsPerS' | 'baselineRss' | 'options'
  >
> {
  const [node] = redis.nodes
  const client = new Redis(node!.port, node!.host)
  const farm = await PortalFarm.start(options.portals)
  const web = new PortalFleet({
    oAuthSecret: farm.secret,
    store: new RedisStore(client),
    logger: createNullLogger(),
  })
  const workers: LoadWorker[] = []
  try {
    const expiringIndexes = spreadIndexes(options.portals, options.expiring)
    const expiring = farm.emulators.filter((_, index) => expiringIndexes.has(index))
    const steady = farm.emulators.filter((_, index) => !expiringIndexes.has(index))
    const redisEmpty = await readRedis(client)
    await farm.install(web, steady)
    log(
      `installed ${steady.length} of ${options.portals} portals (the ${expiring.length} expiring ones come after the warm-up); starting ${options.processes} worker processes`,
    )

    const progress: Array<{ ok: number; failed: number }> = []
    const input: LoadWorkerInput = {
      store: { kind: 'redis', host: node!.host, port: node!.port, slotBatchMs: options.slotBatchMs },
      secret: farm.secret,
      memberIds: farm.memberIds,
      warmUpIds: steady.map((emulator) => emulator.memberId),
      expiringIds: expiring.map((emulator) => emulator.memberId),
      callsPerInterval: options.portals,
      dist: options.dist,
    }
    workers.push(...startWorkers(options, input, progress))
    const memoryBefore = (await answers(workers, 'ready')).map((ready) => ready.memory)
    const warmUpStarted = performance.now()
    let warmUpFailed = await warmUp(workers, 'steady')
    const steadyWarmUpMs = performance.now() - warmUpStarted

    // The rate this machine carries, then the measured run at a share of it (the asked rate at most).
    const capacity =
      options.share > 0
        ? await capacityOf(workers, progress, steady.length, options, () => farm.harvest())
        : null
    if (capacity) {
      warmUpFailed += capacity.steps.reduce((sum, step) => sum + step.failed, 0)
      if (capacity.perS === 0)
        throw new Error('the capacity search: no step was carried, not even the slowest')
    }
    const askedPerS = (options.portals * options.processes * 1000) / options.intervalMs
    const intervalMs = capacity
      ? intervalFor(options.portals, options.processes, Math.min(askedPerS, options.share * capacity.perS))
      : options.intervalMs
    const durationS = durationAtInterval(options, intervalMs)
    if (durationS > options.durationS)
      log(
        `the calls run ${durationS} s, not ${options.durationS}: at a call per portal every ${intervalMs} ms, so that every expiring portal is called after its pair fell due`,
      )

    // The expiring pairs enter the eager-refresh window `lead` s into the calls, once every process calls them. Each
    // process takes them up first, as it took up the others, so that what the calls phase counts of them is their
    // refresh: their pairs last that warm-up (twice what the first one took per portal, and a second) and the lead.
    const leadS = refreshLeadS(options.durationS)
    const takeUpMs = Math.ceil((2 * steadyWarmUpMs * expiring.length) / Math.max(1, steady.length)) + 1000
    const installed = performance.now()
    await farm.install(
      web,
      expiring,
      DEFAULT_ACCESS_TOKEN_SETTINGS.eagerRefreshMs / 1000 + Math.ceil(takeUpMs / 1000) + leadS,
    )
    warmUpFailed += await warmUp(workers, 'expiring')
    const tookMs = performance.now() - installed
    if (tookMs > takeUpMs)
      log(
        `warm-up (expiring): took ${Math.round(tookMs)} ms of the ${takeUpMs} ms allowed; their pairs fall due sooner`,
      )
    await sleep(Math.max(0, Math.ceil(takeUpMs / 1000) * 1000 - tookMs))
    farm.resetCounts()
    await collectWithFinalizers(collectFarm!)
    log(`warmed up; ${expiring.length} portals fall due ${leadS} s into the calls`)

    const redisBefore = await readRedis(client)
    const ownCpu = process.cpuUsage()
    const busyBefore = machineBusyMs()
    const started = performance.now()
    const pauses = watchPauses()
    const reports = await callsPhase(
      'fleet',
      workers,
      progress,
      {
        type: 'go',
        portals: 'all',
        intervalMs,
        durationMs: durationS * 1000,
        ...(expiring.length > 0 ? { markAtMs: leadS * 1000 } : {}),
      },
      () => farm.harvest(),
    )
    const wallMs = performance.now() - started
    const farmPauses = pauses.stop()
    const busyMs = machineBusyMs() - busyBefore
    const own = process.cpuUsage(ownCpu)
    const redisAfter = await readRedis(client)

    const memoryAfter = await (async () => {
      for (const worker of workers) worker.send({ type: 'memory' })
      return answers(workers, 'memory')
    })()
    const sampled = farm.memberIds
      .filter((_, index) => index % Math.max(1, Math.floor(options.portals / SAMPLED_PORTALS)) === 0)
      .slice(0, SAMPLED_PORTALS)
    const redisBytes = await bytesPerPortal(client, sampled)

    const calls = sumCalls(reports)
    const total = calls.ok + calls.failed
    const failedCodes: Record<string, number> = {}
    for (const report of reports) addCodes(failedCodes, report.failed)
    const { refreshes, rejected } = farm.counts()
    const expiringIds = new Set(expiring.map((emulator) => emulator.memberId))
    let refreshesOfExpiring = 0
    let refreshesOfOthers = 0
    for (const [memberId, requests] of refreshes) {
      if (expiringIds.has(memberId)) refreshesOfExpiring += requests
      else refreshesOfOthers += requests
    }
    const ran = commandsBetween(redisBefore, redisAfter)
    const latencies = mergeLatencies(reports.map((report) => report.latencies))
    const expiringLatencies = mergeLatencies(reports.map((report) => report.expiringLatencies))
    const steadyLatencies = latencies.map((count, index) => count - (expiringLatencies[index] ?? 0))
    const elapsedS = Math.max(...reports.map((report) => report.elapsedMs)) / 1000
    const redisCpuMs = (redisAfter.cpuS - redisBefore.cpuS) * 1000
    const oursMs = (own.user + own.system) / 1000 + calls.cpuUs / 1000 + redisCpuMs
    const cpuPerCallMs = calls.cpuUs / 1000 / total
    return {
      ok: calls.ok,
      failed: calls.failed,
      failedCodes,
      callsPerS: total / elapsedS,
      skippedCalls: calls.skipped,
      targetCallsPerS: (options.portals * options.processes * 1000) / intervalMs,
      askedCallsPerS: askedPerS,
      capacity,
      intervalMs,
      durationS,
      warmUpFailed,
      expiringPortals: expiring.length,
      refreshesOfExpiring,
      refreshesOfOthers,
      rejected: Object.fromEntries(rejected),
      cpuPerCallMs,
      ...validCpu(reports, cpuPerCallMs, leadS),
      rssPerPortal: perPortal(memoryBefore, memoryAfter, 'rss'),
      heapPerPortal: perPortal(memoryBefore, memoryAfter, 'heapUsed'),
      largestWorker: memoryAfter.reduce(
        (largest, answer) => (answer.memory.rss > largest.rss ? answer.memory : largest),
        memoryAfter[0]!.memory,
      ),
      portalsHeld: Math.min(...memoryAfter.map((answer) => answer.held)),
      idleCpuMsPerS: idleCpu(memoryAfter),
      p50Ms: latencyPercentile(latencies, 0.5),
      p99Ms: latencyPercentile(latencies, 0.99),
      steadyP99Ms: latencyPercentile(steadyLatencies, 0.99),
      expiringP50Ms: latencyPercentile(expiringLatencies, 0.5),
      expiringP99Ms: latencyPercentile(expiringLatencies, 0.99),
      redisSentPerCall: (calls.steadyCommands + calls.expiringCommands + calls.portallessCommands) / total,
      redisSentPortalless: calls.portallessCommands,
      redisSentPerSteadyCall: calls.steadyCommands / Math.max(1, calls.steadyCalls),
      redisSentPerExpiringPortal: calls.expiringCommands / Math.max(1, expiring.length),
      redisRunPerCall: ran.reduce((sum, [, count]) => sum + count, 0) / total,
      redisRunByName: ran.map(([name, count]) => [name, count / total]),
      redisCpuPerCallMs: redisCpuMs / total,
      redisBytesPerPortal: redisBytes,
      sampledPortals: sampled.length,
      redisUsedMemoryPerPortal: (redisAfter.usedMemory - redisEmpty.usedMemory) / options.portals,
      farmPauses,
      otherCores: Math.max(0, (busyMs - oursMs) / wallMs),
      cores: cpus().length,
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop({ type: 'exit' })))
    await web.destroy()
    await web.store.close()
    client.disconnect()
    await farm.close()
  }
}

/**
 * The fleet's CPU per call on valid tokens, ms: over the calls settled before the expiring pairs fell due (`leadS`
 * into the calls, where the workers were told to mark), and that span; `wholeRunMs` when no portal expires (no
 * worker marked).
 */
function validCpu(
  reports: readonly WorkerCalls[],
  wholeRunMs: number,
  leadS: number,
): { validCpuPerCallMs: number; validForS: number | null } {
  const marks = reports.flatMap((report) => (report.beforeMark === null ? [] : [report.beforeMark]))
  if (marks.length < reports.length) return { validCpuPerCallMs: wholeRunMs, validForS: null }
  const before = marks.reduce(
    (sum, mark) => ({ cpuUs: sum.cpuUs + mark.cpuUs, calls: sum.calls + mark.calls }),
    { cpuUs: 0, calls: 0 },
  )
  return { validCpuPerCallMs: before.cpuUs / 1000 / before.calls, validForS: leadS }
}

/**
 * As many processes as the fleet's, each calling one portal on its own `MemoryStore` at the rate of one fleet process
 * (`portals` calls per interval), after a warm-up of as many calls as a fleet process makes; their client CPU per
 * call, ms. The same number of processes on the same cores: sharing two cores between four processes costs each call
 * CPU of its own (caches, switches), which a lone baseline process would not pay and the ratio would blame on the fleet.
 */
async function baselineRun(
  options: LoadOptions,
  warmUpCalls: number,
  run: { intervalMs: number; durationS: number },
): Promise<{ cpuPerCallMs: number; calls: number; idleCpuMsPerS: number; rss: number }> {
  const farm = await PortalFarm.start(1, { rateLimit: false })
  const [emulator] = farm.emulators
  const progress: Array<{ ok: number; failed: number }> = []
  const input: LoadWorkerInput = {
    store: { kind: 'memory', pairs: [emulator!.issueAuthParams()] },
    secret: farm.secret,
    memberIds: [emulator!.memberId],
    warmUpIds: new Array<string>(warmUpCalls).fill(emulator!.memberId),
    expiringIds: [],
    callsPerInterval: options.portals,
    dist: options.dist,
    restrictionParams: UNPACED,
  }
  const workers = startWorkers(options, input, progress)
  try {
    await answers(workers, 'ready')
    await warmUp(workers, 'steady')
    const reports = await callsPhase(BASELINE, workers, progress, {
      type: 'go',
      portals: 'all',
      intervalMs: run.intervalMs,
      durationMs: run.durationS * 1000,
    })
    const calls = sumCalls(reports)
    if (calls.failed > 0)
      throw new Error(
        `baseline: ${calls.failed} calls failed (${JSON.stringify(reports.map((report) => report.failed))})`,
      )
    for (const worker of workers) worker.send({ type: 'memory' })
    const idle = await answers(workers, 'memory')
    return {
      cpuPerCallMs: calls.cpuUs / 1000 / calls.ok,
      calls: calls.ok,
      idleCpuMsPerS: idleCpu(idle),
      rss: Math.max(...idle.map((answer) => answer.memory.rss)),
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop({ type: 'exit' })))
    await farm.close()
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2)
  if (argv.includes('--help')) {
    console.log(LOAD_USAGE)
    return 0
  }
  let options: LoadOptions
  try {
    options = loadOptions(process.env, argv)
  } catch (error) {
    if (!(error instanceof LoadOptionError)) throw error
    log(`load:fleet: ${error.message}\n${LOAD_USAGE}`)
    return 2
  }
  if (!collectFarm) {
    log('load:fleet: run with node --expose-gc (npm run load:fleet does)')
    return 2
  }
  if (!redisInstalled) {
    log('load:fleet: redis-server not found on the PATH (apt-get install redis-server)')
    return 1
  }
  log(
    `load:fleet: ${options.portals} portals x ${options.processes} processes, ${options.share > 0 ? `a capacity search in steps of ${options.stepS} s, then calls at ${Math.round(options.share * 100)} % of it (a call per portal every ${options.intervalMs} ms at most)` : `a call per portal every ${options.intervalMs} ms`} for ${options.durationS} s, ${Math.round(options.expiring * 100)} % expiring`,
  )
  const redis = await startRedisServer()
  let fleet: Awaited<ReturnType<typeof fleetRun>>
  try {
    fleet = await fleetRun(options, redis)
  } finally {
    await redis.stop()
  }
  // The baseline runs as long as the span the ratio reads of the fleet: its first part, on valid tokens.
  const baseline = await baselineRun(options, options.portals - fleet.expiringPortals, {
    intervalMs: fleet.intervalMs,
    durationS: fleet.validForS ?? fleet.durationS,
  })
  const report = loadReport({
    ...fleet,
    options,
    baselineCpuPerCallMs: baseline.cpuPerCallMs,
    baselineCalls: baseline.calls,
    baselineIdleCpuMsPerS: baseline.idleCpuMsPerS,
    baselineRss: baseline.rss,
  })
  console.log(
    `fleet load: ${options.portals} portals x ${options.processes} processes, a call per portal every ${fleet.intervalMs} ms for ${fleet.durationS} s, ${fleet.expiringPortals} portals expiring; workers on ${options.dist ? 'the built package (dist/)' : 'the sources (tsx)'}, semi-spaces of ${options.semiSpaceMb} MB, heap growing ${options.heapGrowingPercent > 0 ? `${options.heapGrowingPercent} %` : "V8's own"}, RedisStore slot batches of ${options.slotBatchMs > 0 ? `${options.slotBatchMs} ms` : 'none (slotBatchMs 0)'}, MALLOC_ARENA_MAX=${WORKER_ENV.MALLOC_ARENA_MAX}\n`,
  )
  console.log(formatTable(report.rows))
  if (!report.checksHeld) return 1
  return options.strict && !report.barsMet ? 1 : 0
}

runMain(main)
