import type { LoggerInterface } from '../logger/logger.js'
import type { PortalOAuth } from '../portal-oauth.js'

interface Held {
  portal: PortalOAuth
  /** `Date.now()` of the last `get()`. */
  usedAt: number
}

/** Longest pause between two looks for idle portals, ms. */
const MAX_SWEEP_MS = 60_000

/**
 * The portals' clients a fleet holds, each released (and destroyed) after `idleMs` without a `get()` once no call or
 * refresh of it is in flight. One timer for all of them, running only while one is held and never keeping the
 * process alive.
 */
export class HeldPortals {
  readonly #held = new Map<string, Held>()
  readonly #idleMs: number
  readonly #logger: LoggerInterface
  /** Destroys in flight; the fleet's `destroy()` waits for them. */
  readonly #releasing = new Set<Promise<void>>()
  #timer: NodeJS.Timeout | null = null

  constructor(idleMs: number, logger: LoggerInterface) {
    this.#idleMs = idleMs
    this.#logger = logger
  }

  /** The held client of the portal, marked as used now. */
  use(memberId: string): PortalOAuth | undefined {
    const held = this.#held.get(memberId)
    if (held) held.usedAt = Date.now()
    return held?.portal
  }

  /** The held client, without marking it used. */
  peek(memberId: string): PortalOAuth | undefined {
    return this.#held.get(memberId)?.portal
  }

  /** Holds a new client. */
  hold(memberId: string, portal: PortalOAuth): void {
    this.#held.set(memberId, { portal, usedAt: Date.now() })
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#sweep(), Math.max(1, Math.min(MAX_SWEEP_MS, this.#idleMs / 2)))
      this.#timer.unref()
    }
  }

  /** Stops holding the portal's client and destroys it; resolves once it is destroyed. */
  release(memberId: string): Promise<void> {
    const held = this.#held.get(memberId)
    if (!held) return Promise.resolve()
    this.#held.delete(memberId)
    if (this.#held.size === 0) this.#stopTimer()
    const destroying = held.portal
      .destroy()
      .catch((error: unknown) =>
        this.#logger.error('PortalFleet: destroying a released client failed', { error }),
      )
      .finally(() => this.#releasing.delete(destroying))
    this.#releasing.add(destroying)
    return destroying
  }

  /** Releases every client and waits for every destroy in flight. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.#held.keys()].map((memberId) => this.release(memberId)))
    await Promise.all([...this.#releasing])
  }

  #sweep(): void {
    const before = Date.now() - this.#idleMs
    for (const [memberId, held] of this.#held) {
      // A client with a call or a refresh in flight stays until a later look finds it idle.
      if (held.usedAt <= before && !held.portal.busy) void this.release(memberId)
    }
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }
}
