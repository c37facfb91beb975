/** What `npm run load:fleet` and its worker processes say to each other over IPC. */
import type { PortalOAuthParams, PortalOAuthSecret, RestrictionParamsInput } from '../../src/index.js'
import type { LatencyCounts } from './latency-histogram.js'

/**
 * The store of a worker: its own ioredis client on the shared server (`slotBatchMs`: the store's option), or a
 * `MemoryStore` seeded with one pair.
 */
export type LoadWorkerStore =
  | { kind: 'redis'; host: string; port: number; slotBatchMs: number }
  | { kind: 'memory'; pairs: PortalOAuthParams[] }

/** What the load test hands a worker process (as JSON in a file named in `argv[2]`). */
export interface LoadWorkerInput {
  store: LoadWorkerStore
  secret: PortalOAuthSecret
  /** Every portal the worker calls, in schedule order. */
  memberIds: string[]
  /** The portals of the warm-up round: one call each, not measured. */
  warmUpIds: string[]
  /**
   * The portals whose pair falls due during the calls: installed after the first warm-up, called once in their own
   * before the calls; their Redis commands are counted apart.
   */
  expiringIds: string[]
  /**
   * Turns per interval, each a call on the next portal (`memberIds.length`: one call per portal); a turn whose
   * previous call still runs is skipped.
   */
  callsPerInterval: number
  /** Whether the worker runs the built package (dist/) rather than the sources. */
  dist: boolean
  /** Restriction params of the fleet's clients; the defaults when absent. */
  restrictionParams?: RestrictionParamsInput
}

/** A worker's process memory, after a full GC. */
export interface WorkerMemory {
  rss: number
  heapUsed: number
  /** What V8 holds for its heap, used or not. */
  heapTotal: number
}

/** How the measured calls of one worker went. */
export interface WorkerCalls {
  ok: number
  /** Failed calls by error code. */
  failed: Record<string, number>
  latencies: LatencyCounts
  /** The latencies of the calls on an expiring portal alone (counted in `latencies` too). */
  expiringLatencies: LatencyCounts
  /** User + system CPU of the process over the calls phase, us. */
  cpuUs: number
  /** Wall time of the calls phase, from the order to go to the last call settled, ms. */
  elapsedMs: number
  /** Turns skipped because the previous call of the same turn (the same portal, in a fleet) was still running. */
  skipped: number
  /** Commands the process sent to Redis over the calls phase: naming a steady portal, an expiring one, none. */
  redisCommands: { steady: number; expiring: number; portalless: number }
  /** The calls of `ok` and `failed` made on a steady portal (one whose pair stays valid). */
  steadyCalls: number
  /**
   * At the order's `markAtMs` (when the expiring pairs fall due): the process's CPU until then, us, and the calls
   * settled until then; `null` without a mark.
   */
  beforeMark: { cpuUs: number; calls: number } | null
}

/**
 * Orders to a worker: warm up (one call on each portal of `warmUpIds`, or of `expiringIds` once they are installed;
 * with `collect`, then a full collection of its heap), run calls (a step of the capacity search on the steady portals,
 * `warmUpIds`, or the calls phase on every portal, `memberIds`; each portal once per `intervalMs` for `durationMs`),
 * collect its heap, idle and measure (CPU while idle, then memory), exit.
 */
export type ToLoadWorker =
  | { type: 'warm-up'; portals: 'steady' | 'expiring'; collect: boolean }
  | { type: 'go'; portals: 'steady' | 'all'; intervalMs: number; durationMs: number; markAtMs?: number }
  | { type: 'collect' }
  | { type: 'memory' }
  | { type: 'exit' }

/**
 * A worker's answers; `progress` comes every second during the calls phase, `warmed` after a warm-up round with the
 * process's user + system CPU over it (`cpuUs`, us).
 */
export type FromLoadWorker =
  | { type: 'ready'; memory: WorkerMemory }
  | { type: 'warmed'; ok: number; failed: Record<string, number>; cpuUs: number }
  | { type: 'progress'; ok: number; failed: number }
  | ({ type: 'done' } & WorkerCalls)
  | { type: 'collected' }
  | { type: 'memory'; memory: WorkerMemory; held: number; idleCpuUs: number; idleMs: number }
