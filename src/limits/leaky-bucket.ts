import Bottleneck from 'bottleneck'
import { raceAbort } from '../core/abortable-sleep.js'
import type { RateLimitParams } from './restriction-params.js'

/**
 * Pacing margins. The portal counts a request when it arrives, not when it is sent: the first requests of a burst
 * may arrive late (they open connections) while later ones arrive early (kept-alive sockets). So the client starts
 * draining 50 ms after the burst began and drains 2 % slower than the portal; then such jitter never pushes the
 * portal's level over its limit.
 */
const DRAIN_START_DELAY_MS = 50
const DRAIN_MARGIN = 1.02

/**
 * The portal's leaky bucket mirrored on the client, as a bottleneck reservoir.
 *
 * bottleneck's own `reservoirIncreaseInterval` restarts its interval at the heartbeat that added a slot, so the rate
 * drifts late by up to one heartbeat per slot, and its heartbeat ticks forever on every instance. Here the reservoir
 * is credited from the absolute time since the bucket started draining (no drift) by one timer that exists only
 * while the bucket is not full, so idle instances hold no timer.
 */
export class LeakyBucket {
  readonly #limiter = new Bottleneck({ maxConcurrent: null })
  #capacity = 1
  #slotMs = 1
  /** Slots in the reservoir, mirrored synchronously (bottleneck's own view is async). */
  #available = 0
  /** Time at which the slot being drained now started draining; `null` when full. */
  #drainSince: number | null = null
  #timer: NodeJS.Timeout | null = null
  /** Callers waiting for a slot; while there are any, the refill timer keeps the process alive. */
  #waiting = 0
  #destroyed = false

  constructor(params: Pick<RateLimitParams, 'burstLimit' | 'drainRate'>) {
    this.configure(params)
    this.#available = this.#capacity
    this.#limiter.updateSettings({ reservoir: this.#available })
  }

  /** Applies new bucket settings; slots already available are kept up to the new capacity. */
  configure(params: Pick<RateLimitParams, 'burstLimit' | 'drainRate'>): void {
    this.#capacity = Math.max(1, Math.floor(params.burstLimit))
    this.#slotMs = (1000 / params.drainRate) * DRAIN_MARGIN
    if (this.#available > this.#capacity) {
      this.#available = this.#capacity
      this.#limiter.updateSettings({ reservoir: this.#available })
    }
    this.#arm()
  }

  /** Waits for a slot. Rejects with the signal's reason when it aborts first. */
  async take(signal?: AbortSignal): Promise<void> {
    const slot = this.#limiter.schedule(() => {
      this.#available -= 1
      if (this.#drainSince === null) this.#drainSince = Date.now() + DRAIN_START_DELAY_MS
      this.#arm()
      return Promise.resolve()
    })
    this.#waiting += 1
    this.#timer?.ref()
    try {
      await raceAbort(slot, signal)
    } finally {
      this.#waiting -= 1
    }
  }

  /** Empties the bucket: the portal said it is full, so wait for it to drain before sending more. */
  drain(): void {
    this.#available = 0
    this.#drainSince = Date.now()
    this.#limiter.updateSettings({ reservoir: 0 })
    this.#arm()
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.#limiter.queued()
  }

  /** Stops the refill timer and drops waiting requests. */
  async destroy(): Promise<void> {
    this.#destroyed = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    await this.#limiter.stop({ dropWaitingJobs: true })
  }

  #arm(): void {
    if (this.#destroyed || this.#drainSince === null) return
    if (this.#timer) clearTimeout(this.#timer)
    const due = this.#drainSince + this.#slotMs - Date.now()
    this.#timer = setTimeout(() => this.#refill(), Math.max(0, due))
    // An idle instance must not keep the process alive; a caller waiting for a slot must.
    if (this.#waiting === 0) this.#timer.unref()
  }

  #refill(): void {
    this.#timer = null
    if (this.#drainSince === null) return
    const drained = Math.max(0, Math.floor((Date.now() - this.#drainSince) / this.#slotMs))
    const credit = Math.min(drained, this.#capacity - this.#available)
    if (credit > 0) {
      this.#available += credit
      void this.#limiter.incrementReservoir(credit)
    }
    this.#drainSince = this.#available >= this.#capacity ? null : this.#drainSince + drained * this.#slotMs
    this.#arm()
  }
}
