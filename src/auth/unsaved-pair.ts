import { setTimeout as sleep } from 'node:timers/promises'
import type { SecretRedactor } from '../errors/to-error.js'
import type { LoggerInterface } from '../logger/logger.js'
import { answerWithin, callStore } from '../store/store-call.js'
import type { TokenStore } from '../store/token-store.js'
import type { PortalOAuthParams } from '../types/auth.js'

/** Time between the starts of two saves while the lock kept for the pair, or its spending mark, lasts, ms. */
const LOCKED_PAUSE_MS = 250
/** After the spending mark's TTL the pause doubles from this one, ms, up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 500
/** Longest pause between two saves, ms. */
const MAX_PAUSE_MS = 5_000

/** What the saver needs from the instance. */
export interface UnsavedPairDeps {
  store: TokenStore
  /** The lock's TTL, ms: each renewal makes the lock last this long again. */
  lockTtlMs: number
  /** The spending mark's TTL, ms: the next holder waits for this pair's save while it lasts. */
  markTtlMs: number
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
 * still holds. So it is saved again in the background, every 250 ms, and the lock kept for it is renewed (taken again
 * if it expired) with each save, until the store takes it; then that lock is given back at once. A holder that takes
 * the lock all the same (this instance could not reach the store for the lock's TTL: a failover) finds the refresh
 * token's spending mark and waits for this save while the mark lasts; past it the saves become more and more rare.
 * `destroy()` makes a last attempt ({@link close}).
 */
export class UnsavedPair {
  readonly #deps: UnsavedPairDeps
  /** The lock kept for the pair, given back once it is saved; `null` when none is held. */
  #owner: string | null = null
  /** When the spending mark of the pair's refresh ends (its TTL, from the lock or its last renewal), `performance.now()` time. */
  #markedUntil = 0
  /** The renewal of the lock under way, if any: one at a time. */
  #renewing: Promise<unknown> | null = null
  #pending = false
  #saving: Promise<void> | null = null
  /** Ends the background saver's pause: a later refresh kept another lock for its pair, or the pair was saved. */
  #wake: AbortController | null = null
  /** The release of the lock once the pair was saved, while it runs. */
  #releasing: Promise<unknown> | null = null
  /** Told when the pair is saved: `close()` waits for it. */
  #onSaved: (() => void) | null = null

  constructor(deps: UnsavedPairDeps) {
    this.#deps = deps
  }

  /**
   * The save under the lock failed or did not answer in time: saves the pair held in the background, then gives back
   * the lock of `owner`, which lasts until `lockedUntil` (`performance.now()` time). `inFlight`, the save still
   * waiting for its answer, counts as the first save: a slow store's answer counts whenever it comes.
   */
  keep(owner: string | null, lockedUntil: number, inFlight: Promise<unknown> | null = null): void {
    this.#owner = owner
    this.#markedUntil = lockedUntil - this.#deps.lockTtlMs + this.#deps.markTtlMs
    this.#pending = true
    if (inFlight) this.#watch(this.#deps.pair(), inFlight)
    this.#wake?.abort()
    this.#saving ??= this.#saveInBackground().finally(() => {
      this.#saving = null
    })
  }

  /**
   * A new refresh of this instance takes over the lock kept for the pair (it would otherwise wait for its own lock):
   * its owner, no longer renewed nor given back here, or `null` when none is kept. The saves go on.
   */
  handOver(): string | null {
    const owner = this.#owner
    this.#owner = null
    return owner
  }

  /**
   * A refresh of this instance that holds the portal's lock ended without a new pair (a lock taken over by
   * {@link handOver}, or its own): while the pair still waits for its save, the lock is kept for it again, renewed and
   * given back once the store has the pair, and `true` is returned. Released instead, it would let another holder load
   * the spent pair the store still holds. `false`: nothing waits (or a lock is kept already), the caller releases it.
   */
  takeBack(owner: string): boolean {
    if (!this.#pending || this.#owner !== null) return false
    this.#owner = owner
    this.#renew()
    return true
  }

  /** `destroy()`: one last save, within `ms`, of a pair the store has not taken yet (an earlier save's answer counts). */
  async close(ms: number): Promise<void> {
    if (this.#pending) {
      const saved = new Promise<void>((resolve) => {
        this.#onSaved = resolve
      })
      const answer = this.#save(this.#deps.pair())
      const last = answerWithin('saving the new pair', answer, { ms, secrets: this.#deps.secrets })
      await Promise.race([saved, last]).catch(() => undefined)
      this.#onSaved = null
    }
    await this.#releasing
  }

  /**
   * Starts a save, and a renewal of the lock, every 250 ms while the spending mark lasts, more and more rarely after
   * it, until one of the saves (or the one that was under way) is answered. The saves are not waited for one by one:
   * a save that never answers (a command lost with its connection) must not keep the next one from going out until
   * the lock has ended, when another instance may take it.
   */
  async #saveInBackground(): Promise<void> {
    let pause = FIRST_PAUSE_MS
    for (let started = performance.now(); this.#pending && !this.#deps.closed(); ) {
      let wait: number
      if (performance.now() < this.#markedUntil) {
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
      if (!this.#pending || this.#deps.closed()) return
      started = performance.now()
      void this.#save(this.#deps.pair())
      this.#renew()
    }
  }

  /**
   * Renews the lock kept for the pair (or takes it again once it expired), with the spending mark, unless a renewal is
   * under way; a store without renewals, or one that fails, leaves the lock to its TTL.
   */
  #renew(): void {
    const owner = this.#owner
    const { store, lockTtlMs, markTtlMs, waitMs, secrets } = this.#deps
    if (!owner || this.#renewing || typeof store.renewLock !== 'function') return
    const memberId = this.#deps.pair().memberId
    const asked = performance.now()
    const renewing = callStore(() => store.renewLock?.(memberId, owner, lockTtlMs) ?? false)
    this.#renewing = answerWithin('renewing the refresh lock', renewing, { ms: waitMs, secrets })
      .then(
        (held) => {
          if (held && this.#owner === owner) this.#markedUntil = asked + markTtlMs
        },
        () => undefined,
      )
      .finally(() => {
        this.#renewing = null
      })
  }

  /** Saves `held`; the answer, whenever it comes, is counted by {@link #watch}. */
  #save(held: PortalOAuthParams): Promise<unknown> {
    const answer = callStore(() => this.#deps.store.save(held))
    this.#watch(held, answer)
    return answer
  }

  /** Counts the answer of a save of `held`: once the store has the pair held now, the lock kept for it is given back. */
  #watch(held: PortalOAuthParams, answer: Promise<unknown>): void {
    answer.then(
      () => this.#saved(held),
      () => undefined,
    )
  }

  #saved(held: PortalOAuthParams): void {
    // A pair that replaced it meanwhile is the one to save, at the next turn.
    if (!this.#pending || this.#deps.pair().refreshToken !== held.refreshToken) return
    this.#pending = false
    this.#wake?.abort()
    this.#onSaved?.()
    const owner = this.#owner
    this.#owner = null
    const { store, logger, secrets, waitMs } = this.#deps
    logger.info('token store took the new pair at last; the lock kept for it is given back')
    if (!owner) return
    const releasing = callStore(() => store.unlock(held.memberId, owner))
    this.#releasing = answerWithin('unlocking', releasing, { ms: waitMs, secrets })
      .catch(() => false)
      .finally(() => {
        this.#releasing = null
      })
  }
}
