import { callStore } from './store-call.js'

/**
 * Most requests in one batch: a full batch leaves at once. The round trip's cost is then shared so widely that waiting
 * for more would save little, and would only make the first request wait longer.
 */
export const MAX_SLOT_BATCH = 16

/**
 * The slot requests of one `RedisStore` (`slotBatchMs`), sent in batches: a request that came with the two before it
 * less than `windowMs` apart on average waits, at most `windowMs`, for others to go with it; any other leaves at
 * once. A batch leaves in one synchronous loop, so its commands reach Redis together and their answers come back
 * together: one wake-up of the process, and of Redis, for several calls instead of one each.
 *
 * Why two gaps and not the last one: requests a little more than `windowMs` apart, whose timers fire a little early or
 * late, would otherwise often find the one before within the window and wait alone for it to close. That costs a
 * wake-up of its own instead of saving one (in `npm run load:fleet` at 10 000 portals, about 6 ms between a process's
 * calls: 1.34x the CPU per call of one portal on a `MemoryStore` with a 5 ms window that looked at the last gap, 1.1x
 * to 1.2x without batches). Requests steadily closer than the window still wait, and find a partner.
 */
export class SlotBatches {
  readonly #windowMs: number
  #waiting: Array<() => void> = []
  #timer: NodeJS.Timeout | null = null
  /** `performance.now()` of the last request and of the one before it; none yet: long ago. */
  #lastAt = Number.NEGATIVE_INFINITY
  #beforeLastAt = Number.NEGATIVE_INFINITY

  /** `windowMs`: the longest a request waits for others; 0 sends every request at once. */
  constructor(windowMs: number) {
    this.#windowMs = windowMs
  }

  /**
   * `send(waitedMs)` now, or with the batch this request joins; `waitedMs` is how long it waited, which the request's
   * own timeout has to take off.
   */
  run<T>(send: (waitedMs: number) => Promise<T>): Promise<T> {
    const now = performance.now()
    // The two gaps before this request, summed: the span since the request before the last.
    const quiet = now - this.#beforeLastAt >= 2 * this.#windowMs
    this.#beforeLastAt = this.#lastAt
    this.#lastAt = now
    if (this.#timer === null && quiet) return send(0)
    return new Promise<T>((resolve, reject) => {
      // A request that throws as it is sent rejects alone; the rest of its batch still leaves.
      this.#waiting.push(() => {
        callStore(() => send(performance.now() - now)).then(resolve, reject)
      })
      if (this.#waiting.length >= MAX_SLOT_BATCH) this.flush()
      // Not unref'd: a call is waiting on it, as it would on the command itself.
      else this.#timer ??= setTimeout(() => this.flush(), this.#windowMs)
    })
  }

  /** Sends every waiting request now (a full batch, the window's end, the store closing). */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    const batch = this.#waiting
    this.#waiting = []
    for (const send of batch) send()
  }
}
