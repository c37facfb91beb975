import { createDefaultLogger } from '../logger/logger.js'
import { asConsoleShaped, isSupportedLogger, type SupportedLogger } from '../logger/structured-logger.js'
import type { PortalOAuthParams } from '../types/auth.js'
import type { InspectOption } from '../types/inspect-option.js'
import { invalidArgument, requireIntegerIn, requireNumberIn } from '../validation/rules.js'
import { DEFAULT_BUCKET_MARGIN_MS } from './bucket-margin.js'
import { type RedisAnnounce, RedisChangeFeed } from './redis-changes.js'
import { type RedisClient, type RedisConnection, redisConnection } from './redis-connection.js'
import { type PortalKeys, portalKeys, validatePrefix } from './redis-keys.js'
import {
  type LuaScript,
  MARK_DEAD,
  MARK_SPENDING,
  REMOVE,
  RENEW_LOCK,
  REPLACE,
  SAVE_IF_NEWER,
  TAKE_SLOT,
  UNLOCK,
} from './redis-scripts.js'
import {
  lockOwner,
  parseDeadMark,
  parsePair,
  parseSpendingMark,
  spendingMark,
  tokenDigest,
} from './redis-values.js'
import { ReplicaAcks } from './replica-acks.js'
import { SlotBatches } from './slot-batches.js'
import { BackendHealth, type StoreHealth } from './store-health.js'
import type {
  DeadPairReason,
  SharedBucketSettings,
  SlotAnswer,
  SpendingMark,
  TokenStore,
} from './token-store.js'

/** Options of `new RedisStore(client, options)`. */
export interface RedisStoreOptions {
  /** Prefix of every key and channel, without braces. Default `'portal-oauth:'`. */
  prefix?: string
  /**
   * Headroom of the shared leaky bucket, ms of drain kept free: requests that left one after the other may reach the
   * portal closer together (network, busy event loops). Default 100; 10 was measured too little at 20 requests/s.
   */
  bucketMargin?: number
  /** Longest wait for a change of a pair before a waiter looks at the store again, ms. Default 500. */
  pollInterval?: number
  /**
   * Longest wait for one answer from Redis, ms; then the operation rejects and the caller goes on, and the store knows
   * Redis is down (see `outageCooldown`). Default 5 000.
   */
  commandTimeout?: number
  /**
   * The circuit breaker's cool-down, ms, 100 to 600 000. From the first operation Redis fails (no answer within
   * `commandTimeout`, a connection error; an error reply such as READONLY is an answer) the store refuses every
   * operation at once and probes Redis (one read of the failed key, waited for `commandTimeout`). A probe that fails
   * confirms the outage, said once through `logger`, and is followed by this long without any, then the next. The
   * first answer brings everything back to the shared state, in one line; one within this long of the failure was a
   * slow answer, not logged. Default 1 000.
   */
  outageCooldown?: number
  /**
   * The share of each portal's bucket (its burst limit and drain rate) a client paces with while the store is down,
   * above 0 and at most 1: every process goes local at once, so N processes on the store stay under the portal's limit
   * together when N times this is at most 1. Default 0.25 (four processes); set it to 1 / your number of processes.
   */
  outageShare?: number
  /**
   * An observer of the store's circuit breaker, the store-health machine (`storeHealthMachine` of
   * `portal-oauth/machines`), as `PortalOAuth`'s `inspect`.
   */
  inspect?: InspectOption
  /**
   * How long a portal's pair stays in Redis after its last save, ms, 1 minute to 10 years: a portal whose
   * application was deleted without an uninstall event leaves nothing behind. Default 180 days, the refresh token's
   * documented lifetime (a pair not refreshed for that long is dead anyway). An uninstall's mark lives as long.
   */
  pairTtl?: number
  /**
   * Replicas that should hold the refresh lock and a saved pair before the store answers (`WAIT`, at most half of
   * `commandTimeout`, and 150 ms less than it). Replication is asynchronous: without it, a failover (Sentinel) can promote a replica that never
   * got the lock, and two instances refresh from one pair. Set it to 1 (or more) with replicas; one server or a
   * Cluster without replicas keeps 0, the default. When fewer acknowledge in time (the master has lost its replica,
   * as after a failover until the old master is back), the store goes on without them, warns once through `logger`,
   * and waits for them 100 ms at most per write until they acknowledge again.
   */
  replicas?: number
  /**
   * Lets slot requests (one per call on a valid token) go to Redis in batches, ms, 0 to 1 000: a request that came
   * with the two before it less than this long apart on average waits at most this long for others, up to 16; any
   * other leaves at once. The batch's commands and answers travel together, one wake-up of the process and of Redis
   * for several calls: at 500 calls a second per process, `5` took the client's CPU per call from 1.30x to 1.00x that
   * of one portal on a `MemoryStore`, for a few ms more per call (docs/fleet.md). Default 0: every request leaves at
   * once.
   */
  slotBatchMs?: number
  /**
   * Where the store tells what it decided on its own (replicas that fell short of `replicas`): console-shaped, or
   * pino/bunyan-shaped. Default: warnings to the console.
   */
  logger?: SupportedLogger
}

const DEFAULTS = {
  bucketMargin: DEFAULT_BUCKET_MARGIN_MS,
  pollInterval: 500,
  commandTimeout: 5_000,
  outageCooldown: 1_000,
}

/** The default {@link RedisStoreOptions.outageShare}: four processes going local at once stay under the limit. */
export const DEFAULT_OUTAGE_SHARE = 0.25

/** The refresh token's documented lifetime, ms: the default {@link RedisStoreOptions.pairTtl}. */
export const DEFAULT_PAIR_TTL_MS = 180 * 24 * 3_600_000
const MAX_PAIR_TTL_MS = 3_650 * 24 * 3_600_000

function msOption(field: keyof typeof DEFAULTS, value: unknown, min: number): number {
  if (value === undefined) return DEFAULTS[field]
  return requireIntegerIn(`RedisStore: options.${field}`, value, min, 600_000, { unit: 'ms' })
}

/**
 * A {@link TokenStore} in Redis, shared by every process connected to it: `import { RedisStore } from
 * 'portal-oauth/redis'`; `client` is an ioredis (5, 6) `Redis` or `Cluster`, or a node-redis (6) client, cluster or
 * sentinel, connected; it stays the caller's to close. On a cluster, changes are announced with sharded pub/sub.
 * Each operation is one atomic command or Lua script over the keys of one portal (one hash slot); the bucket reads
 * the Redis server's clock. Pairs are stored as JSON and hold the portal's tokens and application token: trust the
 * server (ACL, TLS) as you trust your database. A server that lost its data answers like an empty store.
 */
export class RedisStore implements TokenStore {
  readonly #connection: RedisConnection
  readonly #prefix: string
  readonly #announce: RedisAnnounce
  readonly #bucketMargin: number
  readonly #commandTimeout: number
  /** The pair's lifetime as Redis takes it, ms. */
  readonly #pairTtl: string
  /** The replicas' acknowledgement of the lock and a saved pair (`WAIT`). */
  readonly #replicas: ReplicaAcks
  readonly #changes: RedisChangeFeed
  /** The slot requests' batches; `null` without `slotBatchMs`. */
  readonly #slotBatches: SlotBatches | null
  /** The circuit breaker: whether Redis answers, the one owner of the outage path. */
  readonly #health: BackendHealth
  /** The key of the operation that took the store down: the probe reads it (on a cluster, that key's node). */
  #probeKey = ''

  constructor(client: RedisClient, options: RedisStoreOptions = {}) {
    const connection = redisConnection(client)
    if (!connection) {
      throw invalidArgument(
        'RedisStore: client',
        'must be an ioredis Redis or Cluster (5 or 6), or a node-redis client, cluster or sentinel (6)',
      )
    }
    this.#connection = connection
    this.#prefix = validatePrefix(options.prefix)
    this.#bucketMargin = msOption('bucketMargin', options.bucketMargin, 0)
    this.#commandTimeout = msOption('commandTimeout', options.commandTimeout, 1)
    this.#pairTtl = String(
      options.pairTtl === undefined
        ? DEFAULT_PAIR_TTL_MS
        : requireIntegerIn('RedisStore: options.pairTtl', options.pairTtl, 60_000, MAX_PAIR_TTL_MS, {
            unit: 'ms',
          }),
    )
    const replicas =
      options.replicas === undefined
        ? 0
        : requireIntegerIn('RedisStore: options.replicas', options.replicas, 0, 16)
    if (options.logger !== undefined && !isSupportedLogger(options.logger))
      throw invalidArgument('RedisStore: options.logger', 'must have debug, info, warn and error functions')
    const logger = options.logger ? asConsoleShaped(options.logger) : createDefaultLogger()
    this.#replicas = new ReplicaAcks(replicas, this.#commandTimeout, logger)
    this.#announce = connection.sharded ? 'SPUBLISH' : 'PUBLISH'
    this.#changes = new RedisChangeFeed(connection, msOption('pollInterval', options.pollInterval, 1))
    const slotBatchMs =
      options.slotBatchMs === undefined
        ? 0
        : requireIntegerIn('RedisStore: options.slotBatchMs', options.slotBatchMs, 0, 1_000, { unit: 'ms' })
    this.#slotBatches = slotBatchMs > 0 ? new SlotBatches(slotBatchMs) : null
    this.#health = new BackendHealth({
      name: 'RedisStore',
      backend: 'Redis',
      localShare:
        options.outageShare === undefined
          ? DEFAULT_OUTAGE_SHARE
          : requireNumberIn('RedisStore: options.outageShare', options.outageShare, 0.001, 1),
      cooldownMs: msOption('outageCooldown', options.outageCooldown, 100),
      probe: () => this.#probe(),
      logger,
      inspect: options.inspect,
    })
  }

  /** Whether Redis answers, as the store's circuit breaker knows it (docs/redis.md, "When Redis is down"). */
  get health(): StoreHealth {
    return this.#health
  }

  async load(memberId: string): Promise<PortalOAuthParams | null> {
    const { pair } = this.#keys(memberId)
    const raw = await this.#send('load', pair, ['GET', pair])
    return parsePair(raw)
  }

  async save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    const keys = this.#keys(params.memberId)
    const held = await this.#script(
      'save',
      SAVE_IF_NEWER,
      [keys.pair, keys.removed],
      [JSON.stringify(params), String(params.expires), this.#pairTtl, ...this.#announceTo(keys)],
    )
    // Written: replicas acknowledge it before the caller (a refresh) releases the lock.
    if (held === null || held === false) await this.#replicated('save', keys.pair)
    return parsePair(held) ?? { ...params }
  }

  async replace(params: PortalOAuthParams): Promise<void> {
    const keys = this.#keys(params.memberId)
    await this.#script(
      'replace',
      REPLACE,
      [keys.pair, keys.removed],
      [JSON.stringify(params), this.#pairTtl, ...this.#announceTo(keys)],
    )
  }

  async remove(memberId: string): Promise<void> {
    const keys = this.#keys(memberId)
    await this.#script(
      'remove',
      REMOVE,
      [keys.pair, keys.lock, keys.bucket, keys.dead, keys.removed],
      [this.#pairTtl, ...this.#announceTo(keys)],
    )
  }

  async lock(memberId: string, ttlMs: number): Promise<string | null> {
    // The owner is chosen before the command leaves, so a SET the server runs after this attempt gave up is known.
    const owner = lockOwner()
    try {
      const { lock } = this.#keys(memberId)
      const done = await this.#send('lock', lock, ['SET', lock, owner, 'PX', String(ttlMs), 'NX'])
      if (done !== 'OK') return null
      await this.#replicated('lock', lock)
      return owner
    } catch (error) {
      // A SET the circuit breaker kept back never left: there is nothing to release behind it.
      if (!(error instanceof StoreError && error.notSent)) this.#releaseLate(memberId, owner)
      throw error
    }
  }

  async unlock(memberId: string, owner: string): Promise<boolean> {
    const keys = this.#keys(memberId)
    const args = [owner, ...this.#announceTo(keys)]
    return (await this.#script('unlock', UNLOCK, [keys.lock, keys.spending], args)) === 1
  }

  async renewLock(memberId: string, owner: string, ttlMs: number): Promise<boolean> {
    const keys = this.#keys(memberId)
    const held = await this.#script(
      'renewLock',
      RENEW_LOCK,
      [keys.lock, keys.spending],
      [owner, String(ttlMs)],
    )
    if (held !== 1) return false
    // Like the lock itself: on the replicas before anyone relies on it.
    await this.#replicated('renewLock', keys.lock)
    return true
  }

  async markSpending(memberId: string, refreshToken: string, owner: string, ttlMs: number): Promise<boolean> {
    const keys = this.#keys(memberId)
    const mark = spendingMark(owner, refreshToken, ttlMs)
    const args = [owner, mark, String(ttlMs)]
    if ((await this.#script('markSpending', MARK_SPENDING, [keys.lock, keys.spending], args)) !== 1)
      return false
    // On the replicas before the refresh token leaves: a failover must not lose the mark.
    await this.#replicated('markSpending', keys.spending)
    return true
  }

  async spending(memberId: string, refreshToken: string): Promise<SpendingMark | null> {
    const { spending } = this.#keys(memberId)
    const raw = await this.#send('spending', spending, ['GET', spending])
    return parseSpendingMark(raw, tokenDigest(refreshToken))
  }

  async markDead(memberId: string, refreshToken: string, reason: DeadPairReason): Promise<void> {
    const keys = this.#keys(memberId)
    const mark = JSON.stringify({ token: tokenDigest(refreshToken), ...reason })
    await this.#script('markDead', MARK_DEAD, [keys.pair, keys.dead], [refreshToken, mark, this.#pairTtl])
  }

  async deadReason(memberId: string, refreshToken: string): Promise<DeadPairReason | null> {
    const { dead } = this.#keys(memberId)
    const raw = await this.#send('deadReason', dead, ['GET', dead])
    return parseDeadMark(raw, tokenDigest(refreshToken))
  }

  /** With `replicas`, waits (`WAIT`) until that many replicas hold this connection's writes; see {@link ReplicaAcks}. */
  #replicated(what: string, key: string): Promise<void> {
    return this.#replicas.after(what, (args) => this.#send(what, key, args))
  }

  /**
   * Releases a lock whose `SET` got no answer in time. Sent behind it on the same connection, so a server that
   * stalled runs the late `SET`, then this: no lock outlives the attempt that gave up on it. It carries the script's
   * source (a server that forgot it would refuse a SHA that came too late to be sent again) and waits as long as the
   * server takes.
   */
  #releaseLate(memberId: string, owner: string): void {
    const keys = this.#keys(memberId)
    const args = ['EVAL', UNLOCK.source, '2', keys.lock, keys.spending, owner, ...this.#announceTo(keys)]
    this.#connection.send(keys.lock, args).catch(() => undefined)
  }

  changed(memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.#changes.wait(this.#keys(memberId).changed, timeoutMs, signal)
  }

  takeSlot(
    memberId: string,
    bucket: SharedBucketSettings,
    want = 1,
    timeoutMs?: number,
  ): Promise<SlotAnswer> {
    const batches = this.#slotBatches
    if (!batches) return this.#takeSlotNow(memberId, bucket, want, timeoutMs)
    // The time a request waited for its batch comes off its timeout.
    return batches.run((waitedMs) =>
      this.#takeSlotNow(
        memberId,
        bucket,
        want,
        // Whole ms: the limit is named in the timeout's message.
        Math.max(1, Math.round((timeoutMs ?? this.#commandTimeout) - waitedMs)),
      ),
    )
  }

  #takeSlotNow(
    memberId: string,
    bucket: SharedBucketSettings,
    want: number,
    timeoutMs: number | undefined,
  ): Promise<SlotAnswer> {
    const keys = this.#keys(memberId)
    const args = [
      String(bucket.burstLimit),
      String(bucket.drainRate),
      String(this.#bucketMargin),
      String(Math.max(1, want)),
    ]
    // Not an async function: a call on a shared bucket makes this round trip, and an async frame costs a promise more.
    return this.#script('takeSlot', TAKE_SLOT, [keys.bucket, keys.pair, keys.removed], args, timeoutMs).then(
      (answer) => {
        // Stryker disable next-line ArrayDeclaration,UnaryOperator: TAKE_SLOT answers an array on each of its paths
        const [wait, expires, granted] = Array.isArray(answer) ? answer : [0, -1, 1]
        return {
          waitMs: typeof wait === 'number' ? wait : 0,
          storedExpires: typeof expires === 'number' && expires >= 0 ? expires : null,
          granted: typeof granted === 'number' ? granted : 0,
          removed: expires === -2,
        }
      },
    )
  }

  /**
   * Sends the slot requests still waiting for their batch, closes the subscriber connection this store opened and
   * ends every wait; the client stays open.
   */
  async close(): Promise<void> {
    this.#slotBatches?.flush()
    this.#health.stop()
    await this.#changes.close()
  }

  /** An operation on `key` found Redis unreachable: while up, the store goes down and probes that key. */
  #unreachable(key: string, message: string): void {
    if (!this.#health.up) return
    this.#probeKey = key
    this.#health.unreachable(message)
  }

  #keys(memberId: string): PortalKeys {
    return portalKeys(this.#prefix, memberId)
  }

  #announceTo(keys: PortalKeys): string[] {
    return [this.#announce, keys.changed]
  }

  /** Runs a script by its SHA-1, sending its source once when the server does not know it (after a restart). */
  #script(
    what: string,
    script: LuaScript,
    keys: string[],
    args: string[],
    timeoutMs?: number,
  ): Promise<unknown> {
    const argv = [String(keys.length), ...keys, ...args]
    const [first] = keys as [string]
    return this.#send(what, first, ['EVALSHA', script.sha, ...argv], timeoutMs).catch((error: unknown) => {
      if (!(error instanceof StoreError) || !error.noScript) throw error
      return this.#send(what, first, ['EVAL', script.source, ...argv], timeoutMs)
    })
  }

  /**
   * Sends `args` (`key` routes them) unless Redis is known to be down, when it refuses them at once: nothing waits for
   * a server known not to answer, and nothing piles up in the client's offline queue to run late.
   */
  #send(what: string, key: string, args: string[], timeoutMs?: number): Promise<unknown> {
    if (!this.#health.up) return Promise.reject(new StoreError(this.#health.refusal(what), false, true))
    return this.#run(what, key, this.#connection.send(key, args), timeoutMs)
  }

  /** The circuit breaker's probe: one read of the key whose operation failed, answered within the command timeout. */
  async #probe(): Promise<void> {
    const key = this.#probeKey
    await this.#run('probe', key, this.#connection.send(key, ['EXISTS', key]))
  }

  /**
   * One answer from Redis within the command timeout (or the caller's `timeoutMs`, when shorter); failures carry the
   * reason only, never an argument. No answer within the command timeout, or a failure that is no answer of the server
   * (the connection's), tells the circuit breaker Redis is down; an answer while it is down, that Redis is back.
   */
  #run(what: string, key: string, pending: Promise<unknown>, timeoutMs?: number): Promise<unknown> {
    const limit = Math.max(1, Math.min(this.#commandTimeout, timeoutMs ?? this.#commandTimeout))
    // One promise settled by whichever comes first (a command per call: no race, catch and finally promises).
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const message = `RedisStore ${what}: no answer within ${limit} ms`
        // A caller's shorter wait is its own impatience, not the server's failure.
        if (limit === this.#commandTimeout) this.#unreachable(key, message)
        reject(new StoreError(message))
      }, limit)
      timer.unref()
      pending.then(
        (answer) => {
          clearTimeout(timer)
          this.#health.answered()
          resolve(answer)
        },
        (error: unknown) => {
          clearTimeout(timer)
          // Clients attach the command's arguments (a pair's tokens) to their errors: only the first line goes on.
          const reason = error instanceof Error ? error.message.split('\n')[0] : 'unknown error'
          const message = `RedisStore ${what}: ${reason}`
          if (isServerReply(error)) this.#health.answered()
          else this.#unreachable(key, message)
          reject(new StoreError(message, reason?.startsWith('NOSCRIPT') === true))
        },
      )
    })
  }
}

/** The classes of the server's error replies (READONLY, NOSCRIPT...): ioredis', node-redis'. */
const REPLY_ERRORS = new Set(['ReplyError', 'ErrorReply', 'SimpleError', 'BlobError', 'MultiErrorReply'])

/** Whether `error` is the server's answer (an error reply), not a failure to reach it. */
function isServerReply(error: unknown): boolean {
  return error instanceof Error && REPLY_ERRORS.has(error.constructor.name)
}

/** A failure of Redis, free of the command's arguments. */
class StoreError extends Error {
  readonly noScript: boolean
  /** Refused by the circuit breaker: the command never left. */
  readonly notSent: boolean
  constructor(message: string, noScript = false, notSent = false) {
    super(message)
    this.name = 'RedisStoreError'
    this.noScript = noScript
    this.notSent = notSent
  }
}
