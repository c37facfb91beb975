import type { EmulatorOperatingLimit, EmulatorRateLimit } from './types.js'

/** Default leaky bucket of the portal (all plans but Enterprise). */
export const DEFAULT_RATE_LIMIT: EmulatorRateLimit = { burstLimit: 50, drainRate: 2 }

/** Default operating limit: 480 s of handler time per method in a 10-minute window. */
export const DEFAULT_OPERATING_LIMIT: EmulatorOperatingLimit = { windowMs: 600_000, limitMs: 480_000 }

/**
 * The per-portal request counter: each accepted request adds 1, the level drains continuously by `drainRate` per
 * second; a request that would lift the level above `burstLimit` is refused and not counted.
 */
export class LeakyBucket {
  #limit: EmulatorRateLimit | false
  #level = 0
  #last: number | undefined

  constructor(limit: EmulatorRateLimit | false) {
    this.#limit = limit
  }

  /**
   * Replace the settings at `now` (ms): the level drained so far at the old rate is kept, the new rate applies from
   * then on. `false` switches the bucket off and empties it.
   */
  setLimit(limit: EmulatorRateLimit | false, now: number): void {
    this.#drain(now)
    this.#limit = limit
    if (limit === false) this.#level = 0
  }

  /** The level after draining up to `now` (ms). */
  level(now: number): number {
    this.#drain(now)
    return this.#level
  }

  /** Count one request at `now` (ms); false when the bucket is full (the request is then not counted). */
  tryTake(now: number): boolean {
    this.#drain(now)
    if (this.#limit === false) return true
    if (this.#level + 1 > this.#limit.burstLimit) return false
    this.#level += 1
    return true
  }

  #drain(now: number): void {
    const elapsed = this.#last === undefined ? 0 : Math.max(0, now - this.#last)
    this.#last = this.#last === undefined ? now : Math.max(this.#last, now)
    const rate = this.#limit === false ? Number.POSITIVE_INFINITY : this.#limit.drainRate
    if (elapsed > 0) this.#level = Math.max(0, this.#level - (elapsed / 1000) * rate)
  }
}

interface OperatingBucket {
  start: number
  ms: number
}

/** Operating budget of one method as reported in the `time` block. */
export interface OperatingState {
  /** Accumulated ms in the window. */
  usedMs: number
  /** Unix seconds when the oldest bucket expires (now + window when there is none); absent when not sent. */
  resetAt?: number
}

/**
 * Operating time per key (app + method): 10 buckets each covering a tenth of the window, the bucket clock starting at
 * the first call that opens it; a bucket is dropped `windowMs` after its start.
 */
export class OperatingLimiter {
  #limit: EmulatorOperatingLimit | false
  readonly #buckets = new Map<string, OperatingBucket[]>()

  constructor(limit: EmulatorOperatingLimit | false) {
    this.#limit = limit
  }

  /** Replace the settings (or switch off with `false`); accumulated time is kept. */
  setLimit(limit: EmulatorOperatingLimit | false): void {
    this.#limit = limit
  }

  get #windowMs(): number {
    return this.#limit === false ? DEFAULT_OPERATING_LIMIT.windowMs : this.#limit.windowMs
  }

  /** True when the key has reached its limit at `now` and a call must be refused. */
  isBlocked(key: string, now: number): boolean {
    if (this.#limit === false) return false
    return this.state(key, now).usedMs >= this.#limit.limitMs
  }

  /** Add `ms` of handler time for the key at `now`. */
  record(key: string, now: number, ms: number): void {
    const buckets = this.#prune(key, now)
    const last = buckets[buckets.length - 1]
    if (last && now < last.start + this.#windowMs / 10) {
      last.ms += ms
    } else {
      buckets.push({ start: now, ms })
    }
    this.#buckets.set(key, buckets)
  }

  /** The accumulated time and reset time of the key at `now`. */
  state(key: string, now: number): OperatingState {
    const buckets = this.#prune(key, now)
    const usedMs = buckets.reduce((sum, bucket) => sum + bucket.ms, 0)
    const oldest = buckets[0]
    const resetMs = (oldest ? oldest.start : now) + this.#windowMs
    if (this.#limit !== false && this.#limit.sendsResetAt === false) return { usedMs }
    return { usedMs, resetAt: Math.ceil(resetMs / 1000) }
  }

  #prune(key: string, now: number): OperatingBucket[] {
    const buckets = this.#buckets.get(key) ?? []
    const alive = buckets.filter((bucket) => bucket.start + this.#windowMs > now)
    if (alive.length !== buckets.length) this.#buckets.set(key, alive)
    return alive
  }
}
