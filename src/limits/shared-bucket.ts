import { abortableSleep } from '../core/abortable-sleep.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { LoggerInterface } from '../logger/logger.js'
import { answerWithin, callStore } from '../store/store-call.js'
import type { SlotAnswer, TokenStore } from '../store/token-store.js'
import type { RateLimitParams } from './restriction-params.js'

/**
 * Slots asked of the store per round trip. It grants them only while the bucket stays at most half full, so near
 * the limit every request is counted one by one; below it, up to this many requests share one round trip.
 */
const LEASE_SLOTS = 4
/**
 * How long leased slots stay usable, ms. The store counts them when granted, up to this much before the portal counts
 * them on arrival; the bucket's safety margin (250 ms of drain kept free by default) covers that.
 */
const LEASE_MS = 40
/** Longest wait for the store's answer when the caller gives none, ms: a call's default timeout. */
const DEFAULT_WAIT_MS = 30_000

/**
 * The portal's leaky bucket kept in a shared store, so that every instance of the portal in every process paces
 * under one limit: at most one store round trip per request, a sleep of what the store says otherwise.
 * The store applies a safety margin for the jitter of clocks and event loops across processes.
 */
export class SharedBucket {
  readonly #store: TokenStore
  readonly #key: string
  readonly #logger: LoggerInterface
  #failing = false
  /** Slots the store granted beyond the one used, usable until {@link #leaseUntil}. */
  #leased = 0
  #leaseUntil = 0

  readonly #onStoredPair: (expires: number | null) => void
  readonly #onRemoved: () => void

  /**
   * `onStoredPair` gets the expiry of the pair the store holds (`null`: none) at every answer of the bucket;
   * `onRemoved` runs when the store says the portal was removed (uninstalled), before the call rejects.
   */
  constructor(
    store: TokenStore,
    key: string,
    logger: LoggerInterface,
    onStoredPair: (expires: number | null) => void = () => {},
    onRemoved: () => void = () => {},
  ) {
    this.#store = store
    this.#key = key
    this.#logger = logger
    this.#onStoredPair = onStoredPair
    this.#onRemoved = onRemoved
  }

  /**
   * The share of the portal's bucket the caller paces with when {@link take} resolves `false`: the store's
   * `outageShare` (every process goes local at once), the whole bucket for a store that does not tell.
   */
  get localShare(): number {
    return this.#store.health?.localShare ?? 1
  }

  /**
   * Waits for a slot. Resolves `false` when the store could not be asked (it is down, it threw, or it did not answer
   * within `waitMs`, what the call has left of its timeout): the caller then paces with its own bucket, scaled by
   * {@link localShare}, so that no call hangs on the store. A store that knows it is down is not asked at all. Rejects
   * with `JSSDK_PORTAL_NOT_INSTALLED` when the store says the portal was removed (uninstalled): nothing is sent for it;
   * with the signal's reason when it aborts.
   */
  async take(
    params: Pick<RateLimitParams, 'burstLimit' | 'drainRate'>,
    signal?: AbortSignal,
    waitMs?: number,
  ): Promise<boolean> {
    // A slot leased by an earlier round trip, while fresh, costs none: the store counted it already.
    if (this.#leased > 0 && Date.now() < this.#leaseUntil) {
      this.#leased -= 1
      return true
    }
    // The store said once that it is down: nothing to ask, nothing to log.
    if (this.#storeDown()) return false
    const bucket = { burstLimit: params.burstLimit, drainRate: params.drainRate }
    for (;;) {
      let answer: SlotAnswer
      try {
        // The store is told the wait too; one that does not keep to it is left to answer late.
        const pending = callStore(() => this.#store.takeSlot(this.#key, bucket, LEASE_SLOTS, waitMs))
        answer = await answerWithin('taking a slot', pending, { ms: waitMs ?? DEFAULT_WAIT_MS, signal })
      } catch (error) {
        if (signal?.aborted) throw signal.reason
        // A failure that took the store down is the store's to tell.
        if (this.#storeDown()) return false
        if (!this.#failing)
          this.#logger.error('shared leaky bucket unreachable; pacing locally until it answers', { error })
        this.#failing = true
        return false
      }
      if (answer.removed === true) {
        // After this call has its error: a release destroys the client, which would otherwise be the reason given.
        setImmediate(this.#onRemoved)
        throw portalRemoved(this.#key)
      }
      this.#onStoredPair(answer.storedExpires)
      // The slots granted beyond the one this call uses; none (-1) when the store said to wait.
      this.#leased = answer.granted - 1
      this.#leaseUntil = Date.now() + LEASE_MS
      if (this.#failing) this.#logger.info('shared leaky bucket answers again')
      this.#failing = false
      if (answer.waitMs <= 0) return true
      await abortableSleep(answer.waitMs, signal)
    }
  }

  /** Whether the store knows its backend is down (it said so itself, once). */
  #storeDown(): boolean {
    return this.#store.health?.up === false
  }
}

/** The error of a call to a portal the store says was uninstalled. */
function portalRemoved(memberId: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.PortalNotInstalled,
    message: `portal ${memberId} is not installed (it was uninstalled; the store holds no pair for it)`,
  })
}
