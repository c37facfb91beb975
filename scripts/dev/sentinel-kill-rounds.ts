/**
 * Sentinel failovers in a row with the master killed while a refresh is at the OAuth server: the long run of
 * docs/redis.md ("A Sentinel failover"). A master, one replica and three sentinels (`scripts/dev/redis-sentinel.ts`),
 * four processes (`scripts/dev/failover-worker.ts`: ioredis through the sentinels, `RedisStore({ replicas: 1 })`)
 * calling every 250 ms each. Each round: the access tokens expire, the refresh request is held at the OAuth server,
 * the master is killed (`SIGKILL`), the server answers 300 ms later, the sentinels fail over by themselves, the killed
 * server comes back empty and becomes the new master's replica; the round ends once every process and the master hold
 * the newest pair. Prints rounds, refresh requests, `invalid_grant` answers and calls ok/failed.
 *
 * Run: `npx tsx scripts/dev/sentinel-kill-rounds.ts [rounds] [lockTtl]` (default 30 rounds and the default lock TTL;
 * needs `redis-server`). A `lockTtl` shorter than a failover (3000: a refresh timeout of 2 s) lets the lock expire on
 * the new master before anyone reaches it, so that the processes race for it with the refresher's save. Exit code 1 when a
 * refresh token was refused or a failover did not settle (then the processes' log lines follow). Calls that fail while
 * the sentinels elect a new master (the token expired, the store unreachable) are counted, not a failure of the run.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { startPortalEmulator } from '../../src/testing/index.js'
import type { FailoverWorkerInput, FromFailoverWorker, ToFailoverWorker } from './failover-worker.js'
import { type ForkedWorker, forkWorker } from './forked-worker.js'
import { startRedisSentinel } from './redis-sentinel.js'
import { cli } from './redis-server.js'
import { runMain } from './run-main.js'

const WORKER = fileURLToPath(new URL('./failover-worker.ts', import.meta.url))

/** The portal's bucket: the processes' 16 calls a second stay within it. */
const RATE_LIMIT = { burstLimit: 50, drainRate: 20 }

/** How long a round may take to settle after the failover, ms: past it the round counts as unsettled. */
const SETTLE_MS = 60_000

/** What one round measured. */
export interface KillRound {
  /** From the kill to every sentinel reporting the new master, ms. */
  failoverMs: number
  /** From the kill until every process and the master hold the newest pair, ms; `null`: not within 60 s. */
  settledMs: number | null
}

/** What a run measured. */
export interface KillRoundsResult {
  rounds: KillRound[]
  /** Refresh requests the OAuth server answered with a new pair. */
  refreshes: number
  /** Refresh requests refused with `invalid_grant` (a refresh token presented twice). */
  invalidGrant: number
  callsOk: number
  /** Failed calls by error code. */
  callsFailed: Record<string, number>
  /** Pairs saved by the background saver after the attempt gave up waiting for the save. */
  lateSaves: number
  /** Lock holders that found another holder's spending mark and waited for its pair. */
  markWaits: number
  /** The processes' log lines at info and above. */
  lines: string[]
}

type Worker = ForkedWorker<ToFailoverWorker, FromFailoverWorker>

/** Runs `rounds` kill failovers with `processes` processes; `progress` hears of each round. */
export async function runKillRounds(
  rounds: number,
  {
    processes = 4,
    lockTtl,
    progress,
  }: { processes?: number; lockTtl?: number; progress?: (line: string) => void } = {},
): Promise<KillRoundsResult> {
  const group = await startRedisSentinel()
  const emulator = await startPortalEmulator({ rateLimit: RATE_LIMIT })
  const workers: Worker[] = []
  try {
    const pair = emulator.issueAuthParams()
    const input: FailoverWorkerInput = {
      sentinels: group.sentinels,
      name: group.name,
      pair,
      secret: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      rateLimit: RATE_LIMIT,
      ...(lockTtl === undefined ? {} : { lockTtl }),
    }
    for (let index = 0; index < processes; index += 1)
      workers.push(forkWorker<ToFailoverWorker, FromFailoverWorker>(WORKER, input))
    for (const worker of workers) await worker.next()
    for (const worker of workers) worker.send({ type: 'stream', intervalMs: 250 })
    const pairKey = `portal-oauth:{${pair.memberId}}:pair`
    /** Whether every process and the master hold the pair the OAuth server issued last. */
    const settled = async (): Promise<boolean> => {
      const newest = emulator.currentRefreshToken
      const stored = await cli(await group.masterPort(), ['GET', pairKey]).catch(() => '')
      if (!stored.includes(`"${newest}"`)) return false
      for (const worker of workers) {
        worker.send({ type: 'pair' })
        const answer = await worker.next()
        if (answer.type !== 'pair' || answer.refreshToken !== newest) return false
      }
      return true
    }
    const measured: KillRound[] = []
    await sleep(500)
    for (let round = 1; round <= rounds; round += 1) {
      await group.whole()
      const before = await group.masterPort()
      const seen = emulator.log.entries.length
      emulator.holdRequests(1, { server: 'oauth' })
      emulator.expireAccessTokens()
      await emulator.waitForHeld()
      const killedAt = performance.now()
      const killedAtMs = Date.now()
      progress?.(`round ${round}: master killed at ${new Date().toISOString().slice(11, 23)}`)
      // The OAuth server answers 300 ms after the kill began, however long the kill itself takes on a busy machine.
      const killing = group.killMaster()
      await sleep(300)
      emulator.releaseHeldRequests()
      await killing
      await group.failedOver(before)
      const failoverMs = performance.now() - killedAt
      await group.restartKilled()
      let settledMs: number | null = null
      while (performance.now() - killedAt < SETTLE_MS) {
        if (await settled()) {
          settledMs = performance.now() - killedAt
          break
        }
        await sleep(100)
      }
      measured.push({ failoverMs, settledMs })
      const refused = emulator.log.rejected('invalid_grant').length
      // The round's refresh requests: when they came, relative to the kill, and how they were answered.
      const requests = emulator.log.entries
        .slice(seen)
        .filter((entry) => entry.grantType === 'refresh_token')
        .map((entry) => {
          const how = entry.clientClosed ? ' (client gone before the answer)' : ''
          return `${entry.at - killedAtMs} ms: ${entry.status}${entry.errorCode ? ` ${entry.errorCode}` : ''}${how}`
        })
      progress?.(
        `round ${round}: failover ${(failoverMs / 1000).toFixed(1)} s, settled ${settledMs === null ? 'never' : `${(settledMs / 1000).toFixed(1)} s`}, invalid_grant so far ${refused}; refresh requests ${requests.join(', ')}`,
      )
      // A lost pair ends the run: the rounds after it would measure a dead pair.
      if (settledMs === null || refused > 0) break
    }
    const streamed = await Promise.all(
      workers.map(async (worker) => {
        worker.send({ type: 'stop' })
        return worker.next()
      }),
    )
    const result: KillRoundsResult = {
      rounds: measured,
      refreshes: emulator.log.refreshRequests().filter((entry) => entry.status === 200).length,
      invalidGrant: emulator.log.rejected('invalid_grant').length,
      callsOk: 0,
      callsFailed: {},
      lateSaves: 0,
      markWaits: 0,
      lines: [],
    }
    for (const [index, answer] of streamed.entries()) {
      if (answer.type !== 'streamed') continue
      result.callsOk += answer.ok
      for (const [code, count] of Object.entries(answer.failed))
        result.callsFailed[code] = (result.callsFailed[code] ?? 0) + count
      result.lines.push(...answer.lines.map((line) => `process ${index + 1} ${line}`))
    }
    result.lateSaves = result.lines.filter((line) => line.includes('took the new pair at last')).length
    result.markWaits = result.lines.filter((line) => line.includes('waiting for that pair')).length
    return result
  } finally {
    await Promise.all(workers.map((worker) => worker.stop({ type: 'exit' })))
    await emulator.close()
    await group.stop()
  }
}

async function main(): Promise<number> {
  const rounds = Number(process.argv[2] ?? 30)
  const lockTtl = process.argv[3] === undefined ? undefined : Number(process.argv[3])
  const result = await runKillRounds(rounds, {
    ...(lockTtl === undefined ? {} : { lockTtl }),
    progress: (line) => console.log(line),
  })
  const failed = Object.values(result.callsFailed).reduce((sum, count) => sum + count, 0)
  const settled = result.rounds.filter((round) => round.settledMs !== null)
  console.log(
    `${settled.length} of ${rounds} failovers settled; ${result.refreshes} refreshes, ${result.invalidGrant} invalid_grant; calls ${result.callsOk} ok, ${failed} failed ${JSON.stringify(result.callsFailed)}; ${result.lateSaves} pairs saved in the background, ${result.markWaits} waits on a spending mark`,
  )
  const ok = settled.length === rounds && result.invalidGrant === 0
  if (!ok) for (const line of result.lines) console.log(line)
  return ok ? 0 : 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runMain(main)
