/**
 * The fault soak: bursts of mixed v2/v3 calls on an expired token while the emulator throws every fault a client
 * can survive at a share of the requests; the refresh callback persists each pair to a file, and after each burst
 * the client is destroyed and restored from that file, as a restarted process would be. A pair is lost when the
 * persisted pair can no longer refresh.
 */
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createNullLogger, PortalOAuth, type PortalOAuthParams, SdkError } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'

/** What to run. */
export interface SoakOptions {
  /** Bursts, each followed by a restart from the persisted pair. */
  bursts: number
  /** Concurrent calls per burst. */
  calls: number
  /** Share of requests (REST and token) that meet a fault, 0 to 1. */
  faultRate: number
  /** Seed of the PRNG that picks faults: the same seed replays the same choices. */
  seed: number
  /** Told after each burst (progress). */
  onBurst?: (burst: BurstReport) => void
}

/** One burst's outcome. */
export interface BurstReport {
  /** 1-based burst number. */
  burst: number
  /** Calls that resolved with a result. */
  ok: number
  /** Calls that rejected, by error code. */
  failed: Record<string, number>
  /** Refresh requests the OAuth server received during the burst. */
  refreshRequests: number
  /** Faults armed during the burst, by kind. */
  faults: Record<string, number>
  /** Whether the persisted pair could no longer refresh after the burst. */
  pairLost: boolean
  /** The longest call of the burst, ms. */
  longestCallMs: number
}

/** The whole run. */
export interface SoakReport {
  bursts: BurstReport[]
  /** Calls over all bursts. */
  calls: number
  /** Calls that resolved. */
  ok: number
  /** Rejected calls by code. */
  failed: Record<string, number>
  /** Most refresh requests in one burst. */
  maxRefreshRequests: number
  /** Bursts after which the persisted pair was dead. */
  pairsLost: number
  /** The longest call of the run, ms. */
  longestCallMs: number
  /**
   * The faults no client can survive with a rotating server, run once apart: a token answer lost after the server
   * rotated the pair. What the client promises then: one request more, `dead`, every call the same error.
   */
  unsurvivable: { refreshRequests: number; tokenState: string; sameErrorForEveryCall: boolean }
}

/** A small seeded PRNG (mulberry32): fault choices replay with the same seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

type Fault = (emulator: PortalEmulator, random: () => number) => void

const later = (ms: number, run: () => void): void => {
  setTimeout(run, ms).unref()
}

/** Faults of a REST request a client survives (reads are retried after a drop, delays and holds end). */
const REST_FAULTS: Record<string, Fault> = {
  'portal drop before the body': (emulator) =>
    emulator.dropConnections(1, { server: 'portal', after: 'headers' }),
  'portal drop after the body': (emulator) =>
    emulator.dropConnections(1, { server: 'portal', after: 'body' }),
  'portal drop after processing': (emulator) =>
    emulator.dropConnections(1, { server: 'portal', after: 'response' }),
  'portal delay': (emulator, random) =>
    emulator.delayRequests(20 + Math.floor(random() * 200), 1, { server: 'portal' }),
  'portal hold': (emulator, random) => {
    emulator.holdRequests(1, { server: 'portal' })
    later(20 + Math.floor(random() * 200), () => emulator.releaseHeldRequests())
  },
}

/** Faults of a token request a client survives (nothing rotated, or the rotated answer arrived odd). */
const TOKEN_FAULTS: Record<string, Fault> = {
  'oauth drop before the body': (emulator) =>
    emulator.dropConnections(1, { server: 'oauth', after: 'headers' }),
  'oauth drop after the body': (emulator) => emulator.dropConnections(1, { server: 'oauth', after: 'body' }),
  'oauth 500 html, not processed': (emulator) => emulator.failTokenRequests({ status: 500 }),
  'oauth 503, not processed': (emulator) =>
    emulator.failTokenRequests({ status: 503, body: 'busy', contentType: 'text/plain' }),
  'oauth server_error': (emulator) => emulator.failOAuth({ error: 'server_error', status: 500 }),
  'oauth odd answer': (emulator) =>
    emulator.mutateTokenResponses({ set: { status: 'X', expires: 'soon', client_endpoint: 42 } }),
  'oauth delay': (emulator, random) =>
    emulator.delayRequests(50 + Math.floor(random() * 300), 1, { server: 'oauth' }),
  'oauth hold': (emulator, random) => {
    emulator.holdRequests(1, { server: 'oauth' })
    later(50 + Math.floor(random() * 300), () => emulator.releaseHeldRequests())
  },
}

function pick(faults: Record<string, Fault>, random: () => number): [string, Fault] {
  const entries = Object.entries(faults)
  return entries[Math.floor(random() * entries.length)] as [string, Fault]
}

function count(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1
}

/** Runs the soak against an in-process emulator (faults are armed per request, in order, so it must be in reach). */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const random = prng(options.seed)
  let offsetMs = 0
  const now = (): number => Date.now() + offsetMs
  // No bucket on either side: the soak is about refreshes, not pacing.
  const emulator = await startPortalEmulator({ now, rateLimit: false, operatingLimit: false })
  const folder = await mkdtemp(join(tmpdir(), 'portal-oauth-soak-'))
  const file = join(folder, 'tokens.json')
  const persist = async (params: PortalOAuthParams): Promise<void> => {
    const temporary = `${file}.tmp`
    await writeFile(temporary, JSON.stringify(params), { mode: 0o600 })
    await rename(temporary, file)
  }
  const restore = async (): Promise<PortalOAuth> => {
    const portal = new PortalOAuth(
      JSON.parse(await readFile(file, 'utf8')) as PortalOAuthParams,
      { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      {
        now,
        logger: createNullLogger(),
        refreshTimeout: 2_000,
        restrictionParams: { rateLimit: { burstLimit: 100_000, drainRate: 100_000 }, retryDelay: 20 },
      },
    )
    portal.setCallbackRefreshAuth(({ b24OAuthParams }) => persist(b24OAuthParams))
    return portal
  }
  const bursts: BurstReport[] = []
  try {
    await persist(emulator.issueAuthParams())
    for (let burst = 1; burst <= options.bursts; burst += 1) {
      const portal = await restore()
      const faults: Record<string, number> = {}
      // The token expired while the process was down; every other burst the portal says so, else the client sees it.
      if (burst % 2 === 0) emulator.expireAccessTokens()
      else offsetMs += 3_660_000
      const refreshBefore = emulator.log.tokenRequests().length
      for (let index = 0; index < 3; index += 1) {
        if (random() >= options.faultRate) continue
        const [name, fault] = pick(TOKEN_FAULTS, random)
        fault(emulator, random)
        count(faults, name)
      }
      const failed: Record<string, number> = {}
      let ok = 0
      let longestCallMs = 0
      const runs = Array.from({ length: options.calls }, async (_, index) => {
        if (random() < options.faultRate) {
          const [name, fault] = pick(REST_FAULTS, random)
          fault(emulator, random)
          count(faults, name)
        }
        const started = performance.now()
        try {
          const call =
            index % 2 === 0
              ? portal.actions.v2.call.make({ method: 'profile', requestId: `soak-${burst}-${index}` })
              : portal.actions.v3.call.make({
                  method: 'tasks.task.list',
                  requestId: `soak-${burst}-${index}`,
                })
          await call
          ok += 1
        } catch (error) {
          count(failed, error instanceof SdkError ? error.code : 'other')
        } finally {
          longestCallMs = Math.max(longestCallMs, performance.now() - started)
        }
      })
      await Promise.all(runs)
      const refreshRequests = emulator.log.tokenRequests().length - refreshBefore
      // The process stops; faults of this burst not used yet stop with it.
      emulator.clearFaults()
      await portal.destroy()
      const pairLost = !(await pairAlive(restore))
      if (pairLost) await persist(emulator.issueAuthParams())
      const report = {
        burst,
        ok,
        failed,
        refreshRequests,
        faults,
        pairLost,
        longestCallMs: Math.round(longestCallMs),
      }
      bursts.push(report)
      options.onBurst?.(report)
    }
    const unsurvivable = await unsurvivableScenario(emulator, restore)
    return summary(bursts, unsurvivable)
  } finally {
    await emulator.close()
    await rm(folder, { recursive: true, force: true })
  }
}

/** Whether the persisted pair still refreshes (and persists its successor, so the chain goes on). */
async function pairAlive(restore: () => Promise<PortalOAuth>): Promise<boolean> {
  const portal = await restore()
  try {
    await portal.auth.refreshAuth()
    return true
  } catch {
    return false
  } finally {
    await portal.destroy()
  }
}

async function unsurvivableScenario(
  emulator: PortalEmulator,
  restore: () => Promise<PortalOAuth>,
): Promise<SoakReport['unsurvivable']> {
  const portal = await restore()
  try {
    const before = emulator.log.tokenRequests().length
    emulator.failTokenRequests({ status: 503, processed: true })
    emulator.expireAccessTokens()
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => portal.actions.v2.call.make({ method: 'profile' })),
    )
    const errors = outcomes.map((outcome) => (outcome.status === 'rejected' ? outcome.reason : null))
    return {
      refreshRequests: emulator.log.tokenRequests().length - before,
      tokenState: portal.tokenState,
      sameErrorForEveryCall: errors[0] !== null && errors.every((error) => error === errors[0]),
    }
  } finally {
    await portal.destroy()
  }
}

function summary(bursts: BurstReport[], unsurvivable: SoakReport['unsurvivable']): SoakReport {
  const failed: Record<string, number> = {}
  for (const burst of bursts) {
    for (const [code, times] of Object.entries(burst.failed)) failed[code] = (failed[code] ?? 0) + times
  }
  return {
    bursts,
    calls: bursts.reduce(
      (sum, burst) => sum + burst.ok + Object.values(burst.failed).reduce((a, b) => a + b, 0),
      0,
    ),
    ok: bursts.reduce((sum, burst) => sum + burst.ok, 0),
    failed,
    maxRefreshRequests: Math.max(0, ...bursts.map((burst) => burst.refreshRequests)),
    pairsLost: bursts.filter((burst) => burst.pairLost).length,
    longestCallMs: Math.max(0, ...bursts.map((burst) => burst.longestCallMs)),
    unsurvivable,
  }
}

/** Refresh requests a burst may send: the refresh, and two retries of faulted attempts. */
export const MAX_REFRESH_REQUESTS_PER_BURST = 3

/** Whether the run kept its promise: no pair lost, no burst over the refresh budget, the unsurvivable case contained. */
export function soakPassed(report: SoakReport): boolean {
  const { unsurvivable } = report
  return (
    report.pairsLost === 0 &&
    report.maxRefreshRequests <= MAX_REFRESH_REQUESTS_PER_BURST &&
    unsurvivable.refreshRequests <= 2 &&
    unsurvivable.tokenState === 'dead' &&
    unsurvivable.sameErrorForEveryCall
  )
}
