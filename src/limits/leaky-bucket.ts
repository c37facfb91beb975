import type Bottleneck from 'bottleneck'
import { raceAbort } from '../core/abortable-sleep.js'
import { loadBottleneck } from './load-bottleneck.js'
import type { RateLimitParams } from './restriction-params.js'

/**
 * Pacing margins. The portal counts a request when it arrives, not when it is sent, and the requests of a burst do not
 * arrive in the order they left: one that opens a connection may take 150 to 600 ms while a later one on a kept-alive
 * socket arrives at once. A request whose answer came back has surely been counted; one still in flight may be
 * counted at any moment. So a slot drains only once its request has been answered, as if the request had arrived
 * then (the latest it can have arrived), or at the latest {@link ARRIVAL_FALLBACK_MS} after it was taken (when no
 * answer comes: the connection failed, the answer was not the portal's); and the bucket drains 2 % slower than the
 * portal. Then no order of arrivals pushes the portal's level over its limit.
 */
const ARRIVAL_FALLBACK_MS = 1_000
const DRAIN_MARGIN = 1.02

/**
 * The portal's leaky bucket mirrored on the client; callers that find it empty wait in a bottleneck queue gated by
 * its reservoir.
 *
 * The level is credited from the absolute time since the bucket started draining (bottleneck's own
 * `reservoirIncreaseInterval` restarts its interval at the heartbeat that added a slot, so its rate drifts late by
 * up to one heartbeat per slot, and its heartbeat ticks forever on every instance). It is brought up to date when a
 * caller asks for a slot, and by a timer that exists only while callers wait, so idle instances hold no timer.
 *
 * A slot that is free while nobody waits is taken synchronously: going through bottleneck costs several timer turns
 * (its local datastore yields with `setTimeout(0)` on every operation), about 0.3 ms of CPU and 2 ms of latency per
 * call. The bottleneck limiter is created when the first caller has to wait, and its reservoir is brought in line
 * with the level before each caller queues, so that it never lets a waiting caller through on a slot already used.
 */
export class LeakyBucket {
  #limiter: Bottleneck | null = null
  #capacity = 1
  #slotMs = 1
  /** Free slots (the capacity less the requests in the bucket), kept synchronously; the bucket starts empty. */
  #available = 1
  /** The limiter's reservoir once the operations asked of it so far have run. */
  #reservoir = 0
  /** Callers queued in the limiter whose slot has not been granted yet; while any, nobody takes the fast path. */
  #queued = 0
  /** Time at which the slot being drained now started draining; `null` while no slot can drain. */
  #drainSince: number | null = null
  /**
   * When each slot whose request has had no answer yet was taken, oldest first: such a slot is in the bucket and does
   * not drain. An answer frees the oldest (the level counts slots, not which request holds one); a slot left
   * unanswered {@link ARRIVAL_FALLBACK_MS} drains from then on, read when the level is credited (a time, not a timer:
   * one timer set and cleared per call cost more CPU than the rest of the bucket).
   */
  readonly #unanswered: number[] = []
  #timer: NodeJS.Timeout | undefined
  /** Callers waiting for a slot; while there are any, the refill timer keeps the process alive. */
  #waiting = 0
  #destroyed = false

  constructor(params: Pick<RateLimitParams, 'burstLimit' | 'drainRate'>) {
    this.configure(params)
  }

  /**
   * Applies new bucket settings. The requests already in the bucket stay in it, as in the portal's: a larger limit
   * frees the new slots at once, a smaller one leaves only what still fits.
   */
  configure(params: Pick<RateLimitParams, 'burstLimit' | 'drainRate'>): void {
    this.#credit()
    const slotMs = (1000 / params.drainRate) * DRAIN_MARGIN
    // The slot draining now keeps the share of it already drained, not the time: at a new rate that time is worth
    // another number of slots.
    if (this.#drainSince !== null) {
      const now = Date.now()
      this.#drainSince = now - ((now - this.#drainSince) * slotMs) / this.#slotMs
    }
    const inBucket = this.#capacity - this.#available
    this.#capacity = Math.max(1, Math.floor(params.burstLimit))
    this.#slotMs = slotMs
    this.#setLevel(Math.max(0, this.#capacity - inBucket))
    // A smaller bucket holds fewer requests; those it keeps are the newest.
    const kept = this.#capacity - this.#available
    if (this.#unanswered.length > kept) this.#unanswered.splice(0, this.#unanswered.length - kept)
    this.#arm()
  }

  /** Waits for a slot. Rejects with the signal's reason when it aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    if (this.#hasFreeSlot()) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      this.#consume()
      return Promise.resolve()
    }
    return this.#wait(signal)
  }

  /** Takes a free slot at once, when nobody waits for one; `false` when {@link take} would have to wait. */
  tryTake(): boolean {
    if (!this.#hasFreeSlot()) return false
    this.#consume()
    return true
  }

  /** Whether a caller may take a slot now: nobody is queued and the level, credited to now, has one. */
  #hasFreeSlot(): boolean {
    if (this.#queued !== 0) return false
    this.#credit()
    return this.#available > 0
  }

  /** Empties the bucket: the portal said it is full, so wait for it to drain before sending more. */
  drain(): void {
    // Every request in the portal's bucket has arrived by now: all of it drains from now on.
    this.#unanswered.length = 0
    this.#drainSince = Date.now()
    this.#setLevel(0)
    this.#arm()
  }

  /** An answer came back: the portal has counted its request, whose slot drains from now on. */
  answered(): void {
    this.#credit()
    if (this.#unanswered.length === 0) return
    this.#unanswered.shift()
    this.#drainSince ??= Date.now()
    this.#arm()
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.#queued
  }

  /** Stops the refill timer and drops waiting requests. */
  async destroy(): Promise<void> {
    this.#destroyed = true
    clearTimeout(this.#timer)
    this.#timer = undefined
    // Drops the waiting jobs (bottleneck's default), which rejects their callers.
    await this.#limiter?.stop()
  }

  async #wait(signal: AbortSignal | undefined): Promise<void> {
    this.#queued += 1
    this.#waiting += 1
    if (this.#timer) this.#timer.ref()
    else this.#arm()
    let scheduled = false
    try {
      const limiter = await raceAbort(this.#limiterInstance(), signal)
      // bottleneck runs the operations asked of it in order, so this lands before the job below queues.
      this.#credit()
      const change = this.#available - this.#reservoir
      // Stryker disable next-line ConditionalExpression: adding 0 changes nothing; skipping it saves bottleneck a turn
      if (change !== 0) void limiter.incrementReservoir(change)
      this.#reservoir = this.#available
      const slot = limiter.schedule(() => {
        this.#queued -= 1
        this.#reservoir -= 1
        this.#consume()
        return Promise.resolve()
      })
      scheduled = true
      await raceAbort(slot, signal)
    } finally {
      this.#waiting -= 1
      // A caller that gave up before queueing must not keep later callers off the fast path.
      if (!scheduled) this.#queued -= 1
    }
  }

  async #limiterInstance(): Promise<Bottleneck> {
    const Limiter = await loadBottleneck()
    if (!this.#limiter) {
      this.#limiter = new Limiter({ maxConcurrent: null, reservoir: 0 })
      this.#reservoir = 0
      // A wait that began while bottleneck was still loading, for the first time in the process, and destroy() came.
      if (this.#destroyed) await this.#limiter.stop()
    }
    return this.#limiter
  }

  #consume(): void {
    this.#available -= 1
    this.#unanswered.push(Date.now())
    // Callers still queued are woken when this slot's fallback would let it drain (see #arm).
    if (this.#queued > 0 && this.#drainSince === null && this.#unanswered.length === 1) this.#arm()
  }

  #setLevel(level: number): void {
    this.#available = level
    if (this.#limiter) {
      void this.#limiter.updateSettings({ reservoir: level })
      this.#reservoir = level
    }
  }

  /** Credits the slots drained since the last look. */
  #credit(): void {
    const now = Date.now()
    // Slots whose answer did not come in time drain from their fallback moment, as if an answer had come then.
    let oldest = this.#unanswered[0]
    while (oldest !== undefined && now - oldest >= ARRIVAL_FALLBACK_MS) {
      const arrived = oldest + ARRIVAL_FALLBACK_MS
      this.#drainUntil(arrived)
      this.#unanswered.shift()
      this.#drainSince ??= arrived
      oldest = this.#unanswered[0]
    }
    this.#drainUntil(now)
  }

  /** Drains the slots that can drain (answered ones) up to `time`; the clock stops when none is left to drain. */
  #drainUntil(time: number): void {
    if (this.#drainSince === null) return
    const drainable = this.#capacity - this.#available - this.#unanswered.length
    const drained = Math.max(0, Math.floor((time - this.#drainSince) / this.#slotMs))
    if (drained >= drainable) {
      this.#available += Math.max(0, drainable)
      this.#drainSince = null
      return
    }
    this.#available += drained
    this.#drainSince += drained * this.#slotMs
  }

  /** Wakes waiting callers when the next slot has drained; no timer while nobody waits. */
  #arm(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#destroyed || this.#queued === 0) return
    // While nothing drains, waiters are woken when the oldest unanswered slot's fallback would let it drain.
    const oldest = this.#unanswered[0]
    const from = this.#drainSince ?? (oldest === undefined ? null : oldest + ARRIVAL_FALLBACK_MS)
    if (from === null) return
    const due = from + this.#slotMs - Date.now()
    this.#timer = setTimeout(() => this.#refill(), Math.max(0, due))
    // A caller waiting for a slot keeps the process alive; callers that gave up do not.
    if (this.#waiting === 0) this.#timer.unref()
  }

  #refill(): void {
    this.#timer = undefined
    this.#credit()
    const change = this.#available - this.#reservoir
    if (this.#limiter && change > 0) {
      void this.#limiter.incrementReservoir(change)
      this.#reservoir = this.#available
    }
    this.#arm()
  }
}
