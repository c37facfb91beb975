import type Bottleneck from 'bottleneck'
import type { PayloadTime } from '../results/ajax-result.js'
import { loadBottleneck } from './load-bottleneck.js'
import type { AdaptiveConfigParams, OperatingLimitParams } from './restriction-params.js'

interface MethodBudget {
  /** Operating time the portal reported for the method, ms. */
  usedMs: number
  /** When the oldest bucket of the window expires (portal clock), epoch ms; 0 when the portal did not say. */
  resetAt: number
  /** Until when `usedMs` counts, epoch ms: the portal's reset, or one `windowMs` after the answer without one. */
  countsUntil: number
  /** Set after a 429: the method is blocked until then, epoch ms. */
  blockedUntil: number
}

/**
 * The per-method operating budget (contract 5.2), read from the `time.operating` / `operating_reset_at` the portal
 * returns with every answer. A method nearing its budget is delayed (adaptive delay) and run one call at a time
 * (heavy); a blocked method (429) waits for its reset when that is within `adaptiveConfig.maxDelay`.
 */
export class OperatingLimiter {
  readonly #budgets = new Map<string, MethodBudget>()
  /** One bottleneck per heavy method, concurrency 1; created when a method first turns heavy. */
  #heavy: Promise<Bottleneck.Group> | null = null
  #limit: OperatingLimitParams
  #adaptive: AdaptiveConfigParams

  constructor(limit: OperatingLimitParams, adaptive: AdaptiveConfigParams) {
    this.#limit = limit
    this.#adaptive = adaptive
  }

  /** Applies new settings. */
  configure(limit: OperatingLimitParams, adaptive: AdaptiveConfigParams): void {
    this.#limit = limit
    this.#adaptive = adaptive
  }

  /** Notes what an answer to `method` reported: seconds of its budget used, and the reset when the portal sent one. */
  record(method: string, operating: number, resetAt: PayloadTime['operating_reset_at']): void {
    const budget = this.#budget(method)
    budget.usedMs = operating * 1000
    budget.resetAt = typeof resetAt === 'number' ? resetAt * 1000 : 0
    // Without the portal's reset, the use it reported is gone one window later at the latest.
    budget.countsUntil = budget.resetAt || Date.now() + this.#limit.windowMs
  }

  /**
   * The portal blocked `method` (429). Returns how long to wait before trying again, or `null` when the reset is
   * further away than `adaptiveConfig.maxDelay` (the caller then returns the error result).
   */
  blocked(method: string, fallbackMs: number): number | null {
    const budget = this.#budget(method)
    const now = Date.now()
    const wait = budget.resetAt > now ? budget.resetAt - now : fallbackMs
    if (wait > this.#adaptive.maxDelay) return null
    budget.blockedUntil = now + wait
    return wait
  }

  /** The delay to apply before calling `method` now, ms. */
  delayFor(method: string): number {
    const budget = this.#budgets.get(method)
    if (!budget) return 0
    const now = Date.now()
    if (budget.blockedUntil > now) return budget.blockedUntil - now
    const usedMs = this.#currentUse(budget, now)
    if (!this.#adaptive.enabled || usedMs < (this.#limit.limitMs * this.#adaptive.thresholdPercent) / 100)
      return 0
    return Math.min(this.#adaptive.maxDelay, usedMs * this.#adaptive.coefficient)
  }

  /** Runs `task` directly, or one at a time with the other calls of `method` when the method is heavy. */
  run<T>(method: string, task: () => Promise<T>): Promise<T> {
    const budget = this.#budgets.get(method)
    if (
      !budget ||
      this.#currentUse(budget, Date.now()) < (this.#limit.limitMs * this.#limit.heavyPercent) / 100
    ) {
      return task()
    }
    this.#heavy ??= loadBottleneck().then((Limiter) => new Limiter.Group({ maxConcurrent: 1 }))
    return this.#heavy.then((group) => group.key(method).schedule(task))
  }

  /** Drops the per-method limiters. */
  async destroy(): Promise<void> {
    const group = await this.#heavy
    if (!group) return
    await Promise.all(group.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: false })))
  }

  #currentUse(budget: MethodBudget, now: number): number {
    // Past the reset the oldest bucket has gone; until the next answer says more, assume the budget recovered.
    return now >= budget.countsUntil ? 0 : budget.usedMs
  }

  #budget(method: string): MethodBudget {
    let budget = this.#budgets.get(method)
    if (!budget) {
      budget = { usedMs: 0, resetAt: 0, countsUntil: 0, blockedUntil: 0 }
      this.#budgets.set(method, budget)
    }
    return budget
  }
}
