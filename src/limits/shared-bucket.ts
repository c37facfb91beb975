import { abortableSleep } from '../core/abortable-sleep.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { TokenStore } from '../store/token-store.js'
import type { RateLimitParams } from './restriction-params.js'

/**
 * The portal's leaky bucket kept in a shared store, so that every instance of the portal in every process paces
 * under one limit: one store round trip per request when a slot is free, a sleep of what the store says otherwise.
 * The store applies a safety margin for the jitter of clocks and event loops across processes.
 */
export class SharedBucket {
  readonly #store: TokenStore
  readonly #key: string
  readonly #logger: LoggerInterface
  #failing = false

  readonly #onStoredPair: (expires: number | null) => void

  /** `onStoredPair` gets the expiry of the pair the store holds (`null`: none) at every answer of the bucket. */
  constructor(
    store: TokenStore,
    key: string,
    logger: LoggerInterface,
    onStoredPair: (expires: number | null) => void = () => {},
  ) {
    this.#store = store
    this.#key = key
    this.#logger = logger
    this.#onStoredPair = onStoredPair
  }

  /**
   * Waits for a slot. Resolves `false` when the store could not be asked (it is down): the caller then paces with its
   * own bucket, so that no call hangs on the store.
   */
  async take(
    params: Pick<RateLimitParams, 'burstLimit' | 'drainRate'>,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const bucket = { burstLimit: params.burstLimit, drainRate: params.drainRate }
    for (;;) {
      let wait: number
      try {
        const answer = await this.#store.takeSlot(this.#key, bucket)
        wait = answer.waitMs
        this.#onStoredPair(answer.storedExpires)
      } catch (error) {
        if (!this.#failing)
          this.#logger.error('shared leaky bucket unreachable; pacing locally until it answers', { error })
        this.#failing = true
        return false
      }
      if (this.#failing) this.#logger.info('shared leaky bucket answers again')
      this.#failing = false
      if (wait <= 0) return true
      await abortableSleep(wait, signal)
    }
  }
}
