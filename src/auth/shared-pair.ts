import type {
  AccessTokenRefreshOutput,
  AccessTokenState,
  RefreshFailure,
} from '../../machines/access-token.types.js'
import { abortableSleep, raceAbort } from '../core/abortable-sleep.js'
import { RefreshTokenError } from '../errors/refresh-token-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { type SecretRedactor, toError } from '../errors/to-error.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { DeadPairReason, TokenStore } from '../store/token-store.js'
import type { PortalOAuthParams } from '../types/auth.js'

/** What the shared-store protocol needs from the auth side that holds the pair. */
export interface PairHolder {
  /** The pair held now. */
  pair(): PortalOAuthParams
  /** The machine's generation of the pair held. */
  generation(): number
  /** The machine's state now. */
  state(): AccessTokenState
  /** Whether `destroy()` was called. */
  closed(): boolean
  /**
   * Uses `stored`, a pair another instance put in the store (not a refresh: no callback). With `newGeneration` the
   * machine hears of it at once; within a refresh attempt it hears of it when the attempt ends.
   */
  adopt(stored: PortalOAuthParams, newGeneration: boolean): void
}

/** What the protocol works with besides the holder. */
export interface SharedPairDeps {
  /** Where the pair and the refresh lock are shared with other instances. */
  store: TokenStore
  /** Longest time this instance holds the portal's refresh lock in the store, ms. */
  lockTtlMs: number
  /** The instance's redacting logger. */
  logger: LoggerInterface
  /** The instance's secrets, for the failures logged. */
  secrets: SecretRedactor
}

/** Pause between two lock requests while the store fails, ms. */
const LOCK_RETRY_MS = 250

/** Waits for `work` at most `ms`; `work` goes on (and settles by itself) when the wait ends first. */
async function atMost(work: Promise<void>, ms: number): Promise<void> {
  if (!Number.isFinite(ms)) return work
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
  })
  await Promise.race([work, waited]).finally(() => clearTimeout(timer))
}

/** The refusal another instance got for this pair, as this instance's own (the store recorded it). */
function recordedDeath(reason: DeadPairReason): RefreshFailure {
  return { kind: 'dead', error: new RefreshTokenError(reason) }
}

function isRefreshFailure(value: unknown): value is RefreshFailure {
  try {
    return value !== null && typeof value === 'object' && 'kind' in value && 'error' in value
  } catch {
    // A store's failure may be a Proxy whose traps throw: it is no RefreshFailure.
    return false
  }
}

/**
 * The shared-store protocol of one instance: the first look at the store, refreshing under the portal's lock,
 * adopting a newer pair another instance saved, reviving a dead pair from the store, and putting the pair back into a
 * store that lost it. Pairs are told apart by the machine's generation, never by object identity.
 */
export class SharedPair {
  readonly #holder: PairHolder
  readonly #deps: SharedPairDeps
  /** The first look at the store, while it runs; `null` before it and after it failed (the next call retries). */
  #syncing: Promise<void> | null = null
  #synced = false
  /** A save of the pair back into a store that lost it, while one is under way. */
  #puttingBack: Promise<void> | null = null

  constructor(holder: PairHolder, deps: SharedPairDeps) {
    this.#holder = holder
    this.#deps = deps
  }

  /** Whether {@link beforeUse} has work to do: the first look at the store is still to come, or the pair is dead. */
  get needsLook(): boolean {
    return !this.#synced || this.#holder.state() === 'dead'
  }

  /**
   * Before a call or a refresh: the first look at the store (its newer pair wins over the constructor's; otherwise
   * it gets ours), then, for a dead pair, a newer pair another instance left there. A caller waits for each read at
   * most `waitMs` (its own timeout): a store that does not answer sooner is left to finish for later callers.
   */
  async beforeUse(waitMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (!this.#synced) await atMost(this.#sync(), waitMs)
    if (this.#holder.state() === 'dead') await atMost(this.#revive(), waitMs)
  }

  /**
   * A refresh attempt on a shared store: at most one refresh request per rotation across every instance on the
   * store. The instance that takes the portal's lock re-reads the store (another one may have refreshed meanwhile),
   * refreshes with `refreshOwn`, and saves the new pair before releasing the lock; the others wait for the store to
   * change and take that pair, which is not a refresh of their own. A holder that dies frees the lock at its TTL.
   * The attempt stays bounded by the machine's refresh timeout (`signal`).
   */
  async refresh(
    signal: AbortSignal,
    refreshOwn: (signal: AbortSignal) => Promise<AccessTokenRefreshOutput>,
  ): Promise<AccessTokenRefreshOutput> {
    const { store, lockTtlMs } = this.#deps
    const generation = this.#holder.generation()
    const previous = this.#holder.pair()
    const { memberId } = previous
    let owner: string | null = null
    try {
      for (;;) {
        owner = await this.#lockOnceReachable(memberId, signal)
        if (owner) break
        await store.changed(memberId, lockTtlMs, signal)
        if (signal.aborted) {
          throw new SdkError({
            code: SdkErrorCode.RefreshLockBusy,
            message: 'token refresh: another instance held the refresh lock for the whole attempt',
          })
        }
        const adopted = await this.#adoptNewer(previous, generation)
        if (adopted) return adopted
      }
      const lockedAt = performance.now()
      const adopted = await this.#adoptNewer(previous, generation)
      if (adopted) return adopted
      // An instance that refreshed this pair before learned that it is dead: the same refusal, nothing sent.
      const dead = await store.deadReason?.(memberId, previous.refreshToken)
      if (dead) throw recordedDeath(dead)
      let output: AccessTokenRefreshOutput
      try {
        output = await refreshOwn(signal)
      } catch (failure) {
        if (!isRefreshFailure(failure) || failure.kind !== 'dead') throw failure
        // With a rotating server a refusal may mean another holder refreshed after our lock expired: look first.
        const newer = await this.#adoptNewer(previous, generation)
        if (newer) return newer
        await this.#recordDeath(previous, failure.error)
        throw failure
      }
      // The new pair reaches the store before the lock is released, so the next holder never spends the old one.
      // Not saved: the lock is kept until its TTL (a failover can lose the save and still take the release).
      if (!(await this.#saveWhileLocked(this.#holder.pair(), lockedAt, signal))) owner = null
      return output
    } catch (error) {
      if (isRefreshFailure(error)) throw error
      // The store failed (or stayed locked past this attempt): another attempt, after a backoff, may get through.
      return Promise.reject({
        kind: 'transient',
        error: toError(error, this.#deps.secrets),
      } satisfies RefreshFailure)
    } finally {
      if (owner)
        await store.unlock(memberId, owner).catch((error: unknown) => this.failed('unlocking', error))
    }
  }

  /**
   * Saves the new pair while the lock is held, asking again while the store fails, for at most half the lock's TTL
   * and never past the attempt (`signal`); resolves whether it was saved. When it was not, the pair held here goes
   * back into the store at a later call (see {@link putBackIfOlder}), and the caller keeps the lock until its TTL so
   * that nobody refreshes from the old pair meanwhile.
   */
  async #saveWhileLocked(pair: PortalOAuthParams, lockedAt: number, signal: AbortSignal): Promise<boolean> {
    const until = lockedAt + this.#deps.lockTtlMs / 2
    for (let failures = 0; ; failures += 1) {
      try {
        await this.#deps.store.save(pair)
        return true
      } catch (error) {
        if (failures === 0)
          this.failed('saving the new pair (asking again; the lock is kept meanwhile)', error)
        if (performance.now() + LOCK_RETRY_MS >= until) return false
        const waited = await abortableSleep(LOCK_RETRY_MS, signal).then(
          () => true,
          () => false,
        )
        if (!waited) return false
      }
    }
  }

  /** Records in the store that `previous` died of `error`, for the instances that join later; a failure is logged. */
  async #recordDeath(previous: PortalOAuthParams, error: unknown): Promise<void> {
    if (!(error instanceof RefreshTokenError) || !this.#deps.store.markDead) return
    const reason = { code: error.code, description: error.description, status: error.status }
    await this.#deps.store
      .markDead(previous.memberId, previous.refreshToken, reason)
      .catch((failure: unknown) => this.failed('recording the dead pair', failure))
  }

  /**
   * Asks for the portal's lock until the store answers or the attempt ends. No refresh is sent without the lock: with
   * single-use refresh tokens, two instances refreshing at once would kill the pair of one of them, and a pair only
   * one process knows is lost with it. Callers wait within their own timeouts meanwhile.
   */
  async #lockOnceReachable(memberId: string, signal: AbortSignal): Promise<string | null> {
    const { store, lockTtlMs } = this.#deps
    for (let failures = 0; ; failures += 1) {
      const pending = store.lock(memberId, lockTtlMs)
      try {
        const owner = await raceAbort(pending, signal)
        if (failures > 0) this.#deps.logger.info('token store answers again; the refresh goes on')
        return owner
      } catch (error) {
        if (signal.aborted) {
          // The attempt ended first: a lock the store grants after it is given back at once.
          pending.then((late) => (late ? store.unlock(memberId, late) : false)).catch(() => undefined)
          throw error
        }
        if (failures === 0)
          this.failed('taking the refresh lock (asking again until the attempt ends)', error)
        await abortableSleep(LOCK_RETRY_MS, signal).catch(() => undefined)
        if (signal.aborted) throw error
      }
    }
  }

  /** The pair held came from the store: the first look at it is skipped. */
  markSynced(): void {
    this.#synced = true
  }

  /** Saves a pair `setAuthOptions()` brought; a failure is logged, the pair stays in use. */
  saveReplaced(params: PortalOAuthParams): void {
    this.#deps.store.save(params).catch((error: unknown) => this.failed('saving the replaced pair', error))
  }

  /**
   * The store said it holds a pair expiring at `expires` (`null`: none, it lost its data). A newer pair held here
   * goes back into it, so that instances holding an older one find it. Newest wins in the store, so an instance
   * holding an older pair never pushes back over a newer one.
   */
  putBackIfOlder(expires: number | null): void {
    if (this.#puttingBack || this.#holder.closed()) return
    const held = this.#holder.pair()
    if (expires !== null && expires >= held.expires) return
    this.#puttingBack = this.#deps.store
      .save(held)
      .then(
        () =>
          this.#deps.logger.warn('token store held an older pair or none; the pair held here was put back'),
        (error: unknown) => this.failed('putting the pair back', error),
      )
      .finally(() => {
        this.#puttingBack = null
      })
  }

  /** Logs a failure of the store; the instance goes on with the pair it holds. */
  failed(what: string, error: unknown): void {
    this.#deps.logger.error(`token store failed ${what}`, { error: toError(error, this.#deps.secrets) })
  }

  /** The first look at the store: a newer pair there wins; otherwise the store gets ours (also after it lost its data). */
  #sync(): Promise<void> {
    this.#syncing ??= (async () => {
      const holder = this.#holder
      const generation = holder.generation()
      const held = holder.pair()
      try {
        const stored = await this.#deps.store.load(held.memberId)
        // On equal expiry the store wins: refreshed pairs are written there, a constructor's pair may be stale.
        if (stored && stored.expires >= held.expires && stored.refreshToken !== held.refreshToken) {
          // A refresh or a replacement that started meanwhile decides; it consults the store itself.
          if (holder.generation() !== generation || holder.state() === 'refreshing') return
          holder.adopt(stored, true)
        } else if (stored?.refreshToken !== held.refreshToken) {
          // The store holds none, or an older pair: it gets ours. The same pair is left as it is (no write, no publish).
          await this.#deps.store.save(held)
        }
        this.#synced = true
      } catch (error) {
        this.failed('reading the pair', error)
        this.#syncing = null
      }
    })()
    return this.#syncing
  }

  /**
   * A dead pair: another instance may hold a newer one (it refreshed, or put its pair back into a store that lost
   * its data). Each call looks there first, and takes it when there is one; nothing else is sent.
   */
  async #revive(): Promise<void> {
    const holder = this.#holder
    const generation = holder.generation()
    const stored = await this.#newerInStore(holder.pair()).catch(() => null)
    if (stored && holder.generation() === generation && holder.state() === 'dead') holder.adopt(stored, true)
  }

  /** Takes the store's pair, within a refresh attempt, when another instance refreshed since `previous`. */
  async #adoptNewer(
    previous: PortalOAuthParams,
    generation: number,
  ): Promise<AccessTokenRefreshOutput | null> {
    const stored = await this.#newerInStore(previous)
    if (!stored || this.#holder.generation() !== generation) return null
    this.#holder.adopt(stored, false)
    return { expires: stored.expires, fromStore: true }
  }

  /** The store's pair when it is newer than `previous` (another rotation), else `null`. */
  async #newerInStore(previous: PortalOAuthParams): Promise<PortalOAuthParams | null> {
    const stored = await this.#deps.store.load(previous.memberId)
    if (!stored || stored.refreshToken === previous.refreshToken || stored.expires < previous.expires)
      return null
    return stored
  }
}
