import type Bottleneck from 'bottleneck'
import { raceAbort } from '../core/abortable-sleep.js'
import { loadBottleneck } from './load-bottleneck.js'
import type { RateLimitParams } from './restriction-params.js'

/**
 * Pacing margins. The portal counts a request when it arrives, not when it is sent, and the first requests of a burst
 * may arrive late (they open connections: 150 to 600 ms on a fresh process) while later ones arrive early
 * (kept-alive sockets). So the client starts draining a burst when its first answer comes back, which is after the
 * portal counted that request, or at the latest {@link DRAIN_START_FALLBACK_MS} after its first slot was taken (when
 * no answer comes, say the connection failed); and it drains 2 % slower than the portal. Then such jitter never
 * pushes the portal's level over its limit.
 */
const DRAIN_START_FALLBACK_MS = 1_000
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
  /** Time at which the slot being drained now started draining; `null` when full or until the burst's turn ends. */
  #drainSince: number | null = null
  /**
   * When a burst's first slot was taken, until its drain clock starts: at its first answer, or {@link
   * DRAIN_START_FALLBACK_MS} later, which is read when the level is credited (a time, not a timer: one timer set and
   * cleared per call cost more CPU than the rest of the bucket).
   */
  #burstFrom: number | null = null
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
    this.#drainSince = Date.now()
    this.#setLevel(0)
    this.#arm()
  }

  /** An answer came back: the portal has counted the first request of the burst, so the drain clock starts now. */
  answered(): void {
    if (this.#burstFrom !== null) this.#startDraining()
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
    if (this.#drainSince !== null || this.#burstFrom !== null) return
    this.#burstFrom = Date.now()
    // Callers still queued are woken when the fallback would start the drain (see #arm).
    if (this.#queued > 0) this.#arm()
  }

  #startDraining(): void {
    this.#burstFrom = null
    this.#drainSince ??= Date.now()
    this.#arm()
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
    // No answer came in time: the burst drains from its fallback moment, as if a timer had started it then.
    if (this.#burstFrom !== null && now - this.#burstFrom >= DRAIN_START_FALLBACK_MS) {
      this.#drainSince ??= this.#burstFrom + DRAIN_START_FALLBACK_MS
      this.#burstFrom = null
    }
    if (this.#drainSince === null) return
    const drained = Math.max(0, Math.floor((now - this.#drainSince) / this.#slotMs))
    // Never negative: the level is at most the capacity.
    this.#available += Math.min(drained, this.#capacity - this.#available)
    this.#drainSince = this.#available >= this.#capacity ? null : this.#drainSince + drained * this.#slotMs
  }

  /** Wakes waiting callers when the next slot has drained; no timer while nobody waits. */
  #arm(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#destroyed || this.#queued === 0) return
    // Before the drain clock starts, waiters are woken when the fallback would start it.
    const from =
      this.#drainSince ?? (this.#burstFrom === null ? null : this.#burstFrom + DRAIN_START_FALLBACK_MS)
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
