import { setTimeout as sleep } from 'node:timers/promises'
import type { AccessTokenRefreshOutput } from '../../machines/access-token.types.js'
import { abortableSleep, raceAbort } from '../core/abortable-sleep.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { SecretRedactor } from '../errors/to-error.js'
import type { LoggerInterface } from '../logger/logger.js'
import { answerWithin, callStore } from '../store/store-call.js'
import type { SpendingMark, TokenStore } from '../store/token-store.js'
import type { PortalOAuthParams } from '../types/auth.js'

/**
 * How long a spending mark lasts, in lock TTLs, from its writing or its holder's last renewal: a holder whose lock
 * ended before its save reached the store (a failover) is waited for three TTLs more, since it may reach the new
 * master later than the others do (60 s with the default `lockTtl` of 15 s: Sentinel's default `down-after-milliseconds`
 * of 30 s and the election after it). Past it the holder is taken for gone, and its refresh token is presented again:
 * refused if it was spent (nothing can recover a pair only a dead process knew), a new pair if its request never
 * reached the OAuth server.
 */
export const SPENDING_MARK_TTLS = 4

/** Longest pause between two looks at the store while another holder's save is waited for, ms. */
const LOOK_MS = 1_000

/** Pause between two releases that end a mark the store kept, and the longest wait for one's answer, ms. */
const END_PAUSE_MS = 250

/** What the marks need. */
export interface SpendingMarksDeps {
  store: TokenStore
  lockTtlMs: number
  logger: LoggerInterface
  secrets: SecretRedactor
}

/**
 * The spending marks of one instance's refreshes on a shared store. The lock holder marks the refresh token it is
 * about to present (the store keeps the mark until the holder saves a newer pair or gives the lock back); the next
 * holder that finds the mark on the token it would present knows that the outcome is unknown to the store, and waits
 * for the marker's save instead of presenting a refresh token that may be spent. Stores without marks skip both.
 */
export class SpendingMarks {
  readonly #deps: SpendingMarksDeps
  /** Marks whose release the store did not take yet: owner → member id. */
  readonly #unended = new Map<string, string>()

  constructor(deps: SpendingMarksDeps) {
    this.#deps = deps
  }

  /** The mark's TTL, ms. */
  get ttlMs(): number {
    return SPENDING_MARK_TTLS * this.#deps.lockTtlMs
  }

  /**
   * Marks `previous`'s refresh token, under the lock of `owner`, before it is presented. Rejects with
   * `JSSDK_REFRESH_LOCK_BUSY` when `owner` no longer holds the lock (nothing may be sent then), with the store's
   * failure when it fails (`ms`: the longest wait for its answer).
   */
  async mark(previous: PortalOAuthParams, owner: string, signal: AbortSignal, ms: number): Promise<void> {
    const { store, secrets } = this.#deps
    if (typeof store.markSpending !== 'function') return
    const { memberId, refreshToken } = previous
    const pending = callStore(() => store.markSpending?.(memberId, refreshToken, owner, this.ttlMs) ?? true)
    const what = 'marking the refresh token about to be presented (no refresh is sent without it)'
    if (await answerWithin(what, pending, { ms, signal, secrets })) return
    throw new SdkError({
      code: SdkErrorCode.RefreshLockBusy,
      message:
        'token refresh: the refresh lock ended before the refresh token was presented; nothing was sent',
    })
  }

  /**
   * Before `previous`'s refresh token is presented: when another holder marked it and has neither saved a newer pair
   * nor given its lock back, waits for that pair (`newer` looks for it and takes it) until the mark ends or the
   * attempt does (`signal`, then `JSSDK_REFRESH_LOCK_BUSY`). Resolves the pair taken, or `null` when no such mark is
   * left: the token may be presented. `ms`: the longest wait for one answer of the store.
   */
  async awaitMarkersSave(
    previous: PortalOAuthParams,
    signal: AbortSignal,
    ms: () => number,
    newer: () => Promise<AccessTokenRefreshOutput | null>,
  ): Promise<AccessTokenRefreshOutput | null> {
    if (typeof this.#deps.store.spending !== 'function') return null
    const mark = await this.#read(previous, signal, ms())
    if (!mark) return null
    const { logger, store } = this.#deps
    const since = new Date(mark.since).toISOString()
    logger.warn(
      `token refresh: another instance presented this refresh token at ${since} and has not saved its new pair yet (its lock ended first); waiting for that pair instead of presenting the token again`,
      { since },
    )
    for (;;) {
      try {
        await raceAbort(
          callStore(() => store.changed(previous.memberId, LOOK_MS, signal)),
          signal,
        )
      } catch {
        await abortableSleep(LOOK_MS / 4, signal).catch(() => undefined)
      }
      if (signal.aborted) {
        throw new SdkError({
          code: SdkErrorCode.RefreshLockBusy,
          message:
            'token refresh: another instance presented this refresh token and its new pair has not reached the store; the token is not presented again before its mark ends',
        })
      }
      const taken = await newer()
      if (taken) return taken
      if (!(await this.#read(previous, signal, ms()))) {
        logger.warn(
          'token refresh: the mark of the other refresh ended without a newer pair in the store; this instance refreshes',
        )
        return null
      }
    }
  }

  /**
   * The holder gave its lock back without a new pair and the store did not take the release: the mark it left would
   * keep every other holder from presenting the token for the mark's whole TTL, though this holder knows the outcome
   * (nothing sent, or an answer read). Releases again in the background (ending the mark whoever holds the lock by
   * then), every 250 ms, until the store answers, the mark's TTL is over or `closed()`; {@link close} makes a last
   * try.
   */
  endLater(memberId: string, owner: string, closed: () => boolean): void {
    const until = performance.now() + this.ttlMs
    this.#unended.set(owner, memberId)
    const again = async (): Promise<void> => {
      while (this.#unended.has(owner) && performance.now() < until && !closed()) {
        await sleep(END_PAUSE_MS, undefined, { ref: false })
        await this.#end(memberId, owner, END_PAUSE_MS)
      }
    }
    void again()
  }

  /** `destroy()`: a last release, within `ms`, of each mark the store kept after its holder's release failed. */
  async close(ms: number): Promise<void> {
    await Promise.all([...this.#unended].map(([owner, memberId]) => this.#end(memberId, owner, ms)))
    this.#unended.clear()
  }

  /** One release that ends `owner`'s mark; once the store answers, the mark is no longer waited on. */
  async #end(memberId: string, owner: string, ms: number): Promise<void> {
    const { store, secrets } = this.#deps
    const pending = callStore(() => store.unlock(memberId, owner))
    await answerWithin('ending the spending mark', pending, { ms, secrets }).then(
      () => this.#unended.delete(owner),
      () => undefined,
    )
  }

  #read(previous: PortalOAuthParams, signal: AbortSignal, ms: number): Promise<SpendingMark | null> {
    const { store, secrets } = this.#deps
    const { memberId, refreshToken } = previous
    const pending = callStore(() => store.spending?.(memberId, refreshToken) ?? null)
    return answerWithin('reading whether the refresh token was presented already', pending, {
      ms,
      signal,
      secrets,
    })
  }
}
