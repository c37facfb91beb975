import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { PortalOAuthParams } from '../types/auth.js'
import { bucketCapacity, DEFAULT_BUCKET_MARGIN_MS } from './bucket-margin.js'
import type {
  DeadPairReason,
  SharedBucketSettings,
  SlotAnswer,
  SpendingMark,
  TokenStore,
} from './token-store.js'

interface Lock {
  owner: string
  until: number
}

/** A spending mark as the store keeps it: the refresh token, its owner, when, and until when. */
interface Spending extends SpendingMark {
  refreshToken: string
  ttlMs: number
  until: number
}

interface Bucket {
  /** Requests in the bucket at `at`. */
  level: number
  /** Time of `level`, ms. */
  at: number
}

/**
 * The default store: one process, nothing to set up, `new MemoryStore()` takes no argument. One instance handed to
 * several clients or fleets of a process is one store (they share pairs, refresh lock and bucket); separate instances
 * share nothing.
 */
export class MemoryStore implements TokenStore {
  readonly #pairs = new Map<string, PortalOAuthParams>()
  readonly #locks = new Map<string, Lock>()
  readonly #buckets = new Map<string, Bucket>()
  /** The pairs recorded dead: their refresh token and why. */
  readonly #dead = new Map<string, { refreshToken: string; reason: DeadPairReason }>()
  /** The refresh tokens lock holders marked before presenting them (see `markSpending`). */
  readonly #spending = new Map<string, Spending>()
  /** Portals removed (uninstalled) and not installed again. */
  readonly #removed = new Set<string>()
  readonly #watchers = new Map<string, Set<() => void>>()

  async load(memberId: string): Promise<PortalOAuthParams | null> {
    const pair = this.#pairs.get(memberId)
    return pair ? { ...pair } : null
  }

  async save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    if (this.#removed.has(params.memberId)) return { ...params }
    const held = this.#pairs.get(params.memberId)
    if (held && held.expires > params.expires) return { ...held }
    this.#set(params)
    return { ...params }
  }

  async replace(params: PortalOAuthParams): Promise<void> {
    this.#removed.delete(params.memberId)
    this.#set(params)
  }

  async remove(memberId: string): Promise<void> {
    this.#pairs.delete(memberId)
    this.#locks.delete(memberId)
    this.#buckets.delete(memberId)
    this.#dead.delete(memberId)
    this.#spending.delete(memberId)
    this.#removed.add(memberId)
    this.#notify(memberId)
  }

  async lock(memberId: string, ttlMs: number): Promise<string | null> {
    const now = Date.now()
    const held = this.#locks.get(memberId)
    if (held && held.until > now) return null
    const owner = randomUUID()
    this.#locks.set(memberId, { owner, until: now + ttlMs })
    return owner
  }

  async unlock(memberId: string, owner: string): Promise<boolean> {
    if (this.#spending.get(memberId)?.owner === owner) this.#spending.delete(memberId)
    const held = this.#locks.get(memberId)
    if (!held || held.owner !== owner) return false
    this.#locks.delete(memberId)
    // Waiters take the lock at once, also when the holder gives it back without a new pair.
    this.#notify(memberId)
    return true
  }

  async renewLock(memberId: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now()
    const held = this.#locks.get(memberId)
    if (held && held.until > now && held.owner !== owner) return false
    this.#locks.set(memberId, { owner, until: now + ttlMs })
    const mark = this.#spending.get(memberId)
    if (mark?.owner === owner && mark.until > now) mark.until = now + mark.ttlMs
    return true
  }

  async markSpending(memberId: string, refreshToken: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now()
    const held = this.#locks.get(memberId)
    if (!held || held.until <= now || held.owner !== owner) return false
    this.#spending.set(memberId, { owner, since: now, refreshToken, ttlMs, until: now + ttlMs })
    return true
  }

  async spending(memberId: string, refreshToken: string): Promise<SpendingMark | null> {
    const mark = this.#spending.get(memberId)
    if (!mark || mark.until <= Date.now() || mark.refreshToken !== refreshToken) return null
    return { owner: mark.owner, since: mark.since }
  }

  async changed(memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return
    const controller = new AbortController()
    const watchers = this.#watchers.get(memberId) ?? new Set()
    this.#watchers.set(memberId, watchers)
    const wake = (): void => controller.abort()
    watchers.add(wake)
    const onAbort = (): void => controller.abort()
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the finally below removes the listener however the wait ends
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await sleep(timeoutMs, undefined, { signal: controller.signal, ref: false }).catch(() => undefined)
    } finally {
      signal?.removeEventListener('abort', onAbort)
      watchers.delete(wake)
      if (watchers.size === 0) this.#watchers.delete(memberId)
    }
  }

  async takeSlot(memberId: string, bucket: SharedBucketSettings, want = 1): Promise<SlotAnswer> {
    const now = Date.now()
    const slotMs = 1000 / bucket.drainRate
    const held = this.#buckets.get(memberId)
    const level = held ? Math.max(0, held.level - (now - held.at) / slotMs) : 0
    const capacity = bucketCapacity(bucket.burstLimit, bucket.drainRate, DEFAULT_BUCKET_MARGIN_MS)
    const storedExpires = this.#pairs.get(memberId)?.expires ?? null
    const removed = this.#removed.has(memberId)
    const granted = level + want <= capacity / 2 ? want : level + 1 <= capacity ? 1 : 0
    if (granted > 0) {
      this.#buckets.set(memberId, { level: level + granted, at: now })
      return { waitMs: 0, storedExpires, granted, removed }
    }
    const waitMs = Math.max(1, Math.ceil((level + 1 - capacity) * slotMs))
    return { waitMs, storedExpires, granted: 0, removed }
  }

  async markDead(memberId: string, refreshToken: string, reason: DeadPairReason): Promise<void> {
    if (this.#pairs.get(memberId)?.refreshToken !== refreshToken) return
    this.#dead.set(memberId, { refreshToken, reason: { ...reason } })
  }

  async deadReason(memberId: string, refreshToken: string): Promise<DeadPairReason | null> {
    const dead = this.#dead.get(memberId)
    return dead?.refreshToken === refreshToken ? { ...dead.reason } : null
  }

  /**
   * Forgets every portal's data, removal marks included, as a restart of the process does; tests use it to play a
   * store that lost its data. Waiters are woken.
   */
  clear(): void {
    const memberIds = [...this.#pairs.keys(), ...this.#removed]
    this.#pairs.clear()
    this.#locks.clear()
    this.#buckets.clear()
    this.#dead.clear()
    this.#spending.clear()
    this.#removed.clear()
    for (const memberId of memberIds) this.#notify(memberId)
  }

  async close(): Promise<void> {
    for (const watchers of this.#watchers.values()) for (const wake of watchers) wake()
  }

  #set(params: PortalOAuthParams): void {
    this.#pairs.set(params.memberId, { ...params })
    if (this.#dead.get(params.memberId)?.refreshToken !== params.refreshToken)
      this.#dead.delete(params.memberId)
    this.#notify(params.memberId)
  }

  #notify(memberId: string): void {
    for (const wake of this.#watchers.get(memberId) ?? []) wake()
  }
}
