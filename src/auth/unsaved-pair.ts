import { setTimeout as sleep } from 'node:timers/promises'
import type { SecretRedactor } from '../errors/to-error.js'
import type { LoggerInterface } from '../logger/logger.js'
import { answerWithin, callStore } from '../store/store-call.js'
import type { TokenStore } from '../store/token-store.js'
import type { PortalOAuthParams } from '../types/auth.js'

/** Time between the starts of two saves while the lock kept for the pair lasts, ms. */
const LOCKED_PAUSE_MS = 250
/** After the lock's TTL the pause doubles from this one, ms, up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 500
/** Longest pause between two saves, ms. */
const MAX_PAUSE_MS = 5_000

/** What the saver needs from the instance. */
export interface UnsavedPairDeps {
  store: TokenStore
  /** The pair held now: the one saved (newest wins in the store, so a pair taken from it since is saved harmlessly). */
  pair(): PortalOAuthParams
  /** Whether `destroy()` was called. */
  closed(): boolean
  /** Longest wait for one answer of the store, ms (a refresh attempt's). */
  waitMs: number
  logger: LoggerInterface
  secrets: SecretRedactor
}

/**
 * A pair this instance refreshed that the store did not take under the lock (its save failed or did not answer).
 * Until the store has it, an instance that takes the lock after its TTL would refresh from the spent pair the store
 * still holds. So it is saved again in the background, every 250 ms while the lock kept for it lasts and more and
 * more rarely after, until the store takes it; then that lock is given back at once. `destroy()` makes a last
 * attempt ({@link close}).
 */
export class UnsavedPair {
  readonly #deps: UnsavedPairDeps
  /** The lock kept for the pair, given back once it is saved; `null` when none is held. */
  #owner: string | null = null
  /** When that lock ends (its TTL), `performance.now()` time. */
  #lockedUntil = 0
  #pending = false
  #saving: Promise<void> | null = null
  /** Ends the background saver's pause: a later refresh kept another lock for its pair. */
  #wake: AbortController | null = null
  /** A save of `held` started under the lock, not answered yet: the background saver's first. */
  #inFlight: { held: PortalOAuthParams; answer: Promise<unknown> } | null = null

  constructor(deps: UnsavedPairDeps) {
    this.#deps = deps
  }

  /**
   * The save under the lock failed or did not answer in time: saves the pair held in the background, then gives back
   * the lock of `owner`, which lasts until `lockedUntil` (`performance.now()` time). `inFlight`, the save still
   * waiting for its answer, is waited for first, while the lock lasts: a slow store's answer counts.
   */
  keep(owner: string | null, lockedUntil: number, inFlight: Promise<unknown> | null = null): void {
    this.#owner = owner
    this.#lockedUntil = lockedUntil
    this.#pending = true
    if (inFlight) this.#inFlight = { held: this.#deps.pair(), answer: inFlight }
    this.#wake?.abort()
    this.#saving ??= this.#saveInBackground().finally(() => {
      this.#saving = null
    })
  }

  /** `destroy()`: one last save, within `ms`, of a pair the store has not taken yet. */
  async close(ms: number): Promise<void> {
    if (this.#pending) await this.#saveOnce(ms)
  }

  async #saveInBackground(): Promise<void> {
    let pause = FIRST_PAUSE_MS
    for (let started = performance.now(); this.#pending && !this.#deps.closed(); ) {
      const inFlight = this.#inFlight
      if (inFlight) {
        this.#inFlight = null
        // Its answer is waited for while the lock lasts (the refresh timeout at least): the store may be slow, not lost.
        const ms = Math.max(this.#deps.waitMs, this.#lockedUntil - performance.now())
        if (await this.#saveOnce(ms, inFlight)) return
        started = performance.now()
        continue
      }
      let wait: number
      if (performance.now() < this.#lockedUntil) {
        wait = Math.max(0, started + LOCKED_PAUSE_MS - performance.now())
      } else {
        wait = pause
        pause = Math.min(2 * pause, MAX_PAUSE_MS)
      }
      if (wait > 0) {
        this.#wake = new AbortController()
        // Unref'd: a process with nothing else to do exits; destroy() makes the last attempt.
        await sleep(wait, undefined, { ref: false, signal: this.#wake.signal }).catch(() => undefined)
        this.#wake = null
      }
      if (this.#deps.closed()) return
      started = performance.now()
      if (await this.#saveOnce(this.#deps.waitMs)) return
    }
  }

  /**
   * One save of the pair held (or the answer of `started`, a save already under way); once the store has it, the lock
   * kept for it is given back. Resolves whether it did.
   */
  async #saveOnce(
    ms: number,
    started?: { held: PortalOAuthParams; answer: Promise<unknown> },
  ): Promise<boolean> {
    const { store, logger, secrets } = this.#deps
    const held = started?.held ?? this.#deps.pair()
    try {
      const answer = started?.answer ?? callStore(() => store.save(held))
      await answerWithin('saving the new pair', answer, { ms, secrets })
    } catch {
      return false
    }
    // A pair that replaced it meanwhile is the one to save, at the next turn.
    if (this.#deps.pair().refreshToken !== held.refreshToken) return false
    if (!this.#pending) return true
    this.#pending = false
    const owner = this.#owner
    this.#owner = null
    logger.info('token store took the new pair at last; the lock kept for it is given back')
    if (owner) {
      const releasing = callStore(() => store.unlock(held.memberId, owner))
      await answerWithin('unlocking', releasing, { ms, secrets }).catch(() => false)
    }
    return true
  }
}
