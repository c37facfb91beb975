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
import { answerWithin, callStore } from '../store/store-call.js'
import type { DeadPairReason, TokenStore } from '../store/token-store.js'
import type { PortalOAuthParams } from '../types/auth.js'
import { SpendingMarks } from './spending-marks.js'
import { UnsavedPair } from './unsaved-pair.js'

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
  /** Longest time of one refresh attempt (the machine's refresh timeout), ms. */
  attemptMs: number
  /** The instance's redacting logger. */
  logger: LoggerInterface
  /** The instance's secrets, for the failures logged. */
  secrets: SecretRedactor
}

/** Pause between two lock requests while the store fails, ms. */
const LOCK_RETRY_MS = 250
/**
 * How long one attempt asks again for a lock the store keeps refusing with an error, from the first failure, ms: then
 * the attempt ends with the store's failure, and the machine tries again after its backoff, so that a store that
 * answers with an error (READONLY) fails the refresh within seconds. A failure that took this long or more is the
 * store's timeout: such a store is asked until the attempt ends.
 */
const LOCK_FAILURES_MS = 1_000
/**
 * The share of the refresh timeout the store's calls of an attempt may take once it holds the lock: a store that does
 * not answer ends the attempt with its own failure, told before the machine's timeout would tell a bare one.
 */
const STORE_SHARE = 0.9
/**
 * The least wait for one store call of an attempt, ms, also once its share of time is spent (the lock came late): a
 * store that answers at all answers within it, and the machine's own timeout ends the attempt sooner anyway.
 */
const MIN_STORE_WAIT_MS = 1_000

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
  /** The store's failure while the refresh in flight asks it for the lock (see {@link fault}). */
  #fault: Error | null = null
  /** A refreshed pair the store did not take, saved again in the background; made the first time one is. */
  #unsaved: UnsavedPair | null = null
  /** The refresh attempts under way, each settled once it has ended (see {@link settled}). */
  readonly #running = new Set<Promise<void>>()
  /** Marks the refresh token before it is presented; waits for another holder's save when it finds its mark. */
  readonly #marks: SpendingMarks

  constructor(holder: PairHolder, deps: SharedPairDeps) {
    this.#holder = holder
    this.#deps = deps
    this.#marks = new SpendingMarks(deps)
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
    // A store that knows it is down is not read: the pair held is used, and looked up again once the store is up.
    if (this.#deps.store.health?.up === false) return
    if (!this.#synced) await atMost(this.#sync(), waitMs)
    if (this.#holder.state() === 'dead') await atMost(this.#revive(), waitMs)
  }

  /**
   * How the store failed the last refresh's requests for the lock (`null` once it answers one): callers whose own
   * timeout ends while the refresh waits for the lock are told it.
   */
  get fault(): Error | null {
    return this.#fault
  }

  /**
   * A refresh attempt on a shared store: at most one refresh request per rotation across every instance on the
   * store. The instance that takes the portal's lock re-reads the store (another one may have refreshed meanwhile),
   * refreshes with `refreshOwn`, and saves the new pair before releasing the lock; the others wait for the store to
   * change and take that pair, which is not a refresh of their own. A holder that dies frees the lock at its TTL.
   * The attempt stays bounded by the machine's refresh timeout (`signal`); every failure of the store, and a store
   * that does not answer within the attempt, ends it as a transient failure naming the store
   * (`JSSDK_TOKEN_STORE_FAILED`), after the lock was given back.
   */
  async refresh(
    signal: AbortSignal,
    refreshOwn: (signal: AbortSignal) => Promise<AccessTokenRefreshOutput>,
  ): Promise<AccessTokenRefreshOutput> {
    const running = this.#refreshUnderLock(signal, refreshOwn)
    const settled = running.then(
      () => undefined,
      () => undefined,
    )
    this.#running.add(settled)
    void settled.finally(() => this.#running.delete(settled))
    try {
      return await running
    } catch (error) {
      if (isRefreshFailure(error)) throw error
      // Thrown, not returned as a rejected promise: the lock is given back first, and nothing rejects unhandled meanwhile.
      const failure: RefreshFailure = { kind: 'transient', error: toError(error, this.#deps.secrets) }
      throw failure
    }
  }

  async #refreshUnderLock(
    signal: AbortSignal,
    refreshOwn: (signal: AbortSignal) => Promise<AccessTokenRefreshOutput>,
  ): Promise<AccessTokenRefreshOutput> {
    const generation = this.#holder.generation()
    const previous = this.#holder.pair()
    const { memberId } = previous
    // The store's calls end before the machine's timeout does: a store that does not answer is told as such.
    const until = performance.now() + this.#deps.attemptMs * STORE_SHARE
    let owner: string | null = null
    // Once the attempt made a new pair the one held, nothing it still asks the store is waited for: the machine hears
    // of the pair at once (see the end of this method).
    let changed = false
    let marked = false
    try {
      // The lock kept for a pair of this instance that waits for its save is this refresh's: it would wait for it.
      owner = this.#unsaved?.handOver() ?? null
      while (!owner) {
        owner = await this.#lockOnceReachable(memberId, signal)
        if (owner) break
        await this.#lockReleased(memberId, signal)
        if (signal.aborted) {
          throw new SdkError({
            code: SdkErrorCode.RefreshLockBusy,
            message: 'token refresh: another instance held the refresh lock for the whole attempt',
          })
        }
        const adopted = await this.#adoptNewer(previous, generation, signal, until)
        if (adopted) return adopted
      }
      const lockedAt = performance.now()
      const adopted = await this.#adoptNewer(previous, generation, signal, until)
      changed = adopted !== null
      if (adopted) return adopted
      // An instance that refreshed this pair before learned that it is dead: the same refusal, nothing sent.
      const dead = await this.#deadReason(previous, signal, until)
      if (dead) throw recordedDeath(dead)
      // A holder whose lock ended before its new pair reached the store (a failover) may have spent this token: its
      // mark says so, and its save is waited for instead of presenting the token again.
      const saved = await this.#marks.awaitMarkersSave(
        previous,
        signal,
        () => this.#waitUntil(until),
        () => this.#adoptNewer(previous, generation, signal, until),
      )
      changed = saved !== null
      if (saved) return saved
      // A mark the store wrote though its answer was lost is ended as well (see the release below).
      marked = true
      await this.#marks.mark(previous, owner, signal, this.#waitUntil(until))
      let output: AccessTokenRefreshOutput
      try {
        output = await refreshOwn(signal)
      } catch (failure) {
        if (!isRefreshFailure(failure) || failure.kind !== 'dead') throw failure
        // With a rotating server a refusal may mean another holder refreshed after our lock expired: look first
        // (a store that fails this look leaves the refusal as it is).
        const newer = await this.#adoptNewer(previous, generation, signal, until).catch(() => null)
        if (newer) return newer
        await this.#recordDeath(previous, failure.error, until)
        throw failure
      }
      changed = true
      // The new pair reaches the store before the lock is released, so the next holder never spends the old one. The
      // attempt waits for the save while its share of the refresh timeout lasts, no longer: the pair is in use, and a
      // slow store must not turn it into a timed-out attempt and a second refresh. Not saved by then: the lock is kept
      // (a failover can lose the save and still take the release) while the pair is saved again in the background
      // (a new save and a renewal of the lock every 250 ms, the save still in flight counting too); it is given back
      // once the store has the pair. A holder that takes it meanwhile finds the token's spending mark and waits.
      const unsaved = await this.#saveWhileLocked(this.#holder.pair(), lockedAt, signal, until)
      if (unsaved) {
        this.#unsavedPair().keep(owner, lockedAt + this.#deps.lockTtlMs, unsaved.inFlight)
        owner = null
      }
      return output
    } finally {
      if (owner && changed) void this.#unlock(memberId, owner, performance.now() + this.#deps.lockTtlMs)
      // A pair of this instance that the store has not taken keeps the lock, whoever took it last.
      else if (owner && this.#unsaved?.takeBack(owner)) owner = null
      else if (owner && !(await this.#unlock(memberId, owner, until)) && marked)
        this.#marks.endLater(memberId, owner, () => this.#holder.closed())
    }
  }

  /**
   * Resolves once every refresh attempt of this instance has ended, the machine's abandoned ones included. An attempt
   * the machine gave up on at its refresh timeout goes on while its request is at the OAuth server (bounded by the
   * lock's TTL), holding the lock: that request may still spend the refresh token, so `destroy()` waits for its
   * answer, which is committed and saved, instead of cutting it off. Cut off, its answer would be lost and the lock
   * given back at once, and the next holder would present the same refresh token again from the store's old pair.
   */
  async settled(): Promise<void> {
    await Promise.all(this.#running)
  }

  /**
   * `destroy()`, once the refresh in flight has ended: a last save, within `ms`, of a pair the store did not take, and
   * a last release of a spending mark the store kept.
   */
  async close(ms: number): Promise<void> {
    await Promise.all([this.#unsaved?.close(ms), this.#marks.close(ms)])
  }

  #unsavedPair(): UnsavedPair {
    const { store, logger, secrets } = this.#deps
    this.#unsaved ??= new UnsavedPair({
      store,
      lockTtlMs: this.#deps.lockTtlMs,
      markTtlMs: this.#marks.ttlMs,
      pair: () => this.#holder.pair(),
      closed: () => this.#holder.closed(),
      waitMs: this.#deps.attemptMs,
      logger,
      secrets,
    })
    return this.#unsaved
  }

  /** How long one store call of an attempt may wait: what is left of the attempt's share, a moment at least. */
  #waitUntil(until: number): number {
    return Math.max(MIN_STORE_WAIT_MS, until - performance.now())
  }

  /**
   * Saves the new pair while the lock is held, asking again while the store fails, for at most half the lock's TTL
   * and never past the attempt's share of the refresh timeout (`until`) or the attempt (`signal`). Resolves `null`
   * once saved; otherwise with the save still waiting for an answer, if any. When it was not saved, the caller keeps
   * the lock so that nobody refreshes from the old pair meanwhile, and the pair is saved again in the background
   * ({@link UnsavedPair}) and at later calls (see {@link putBackIfOlder}).
   */
  async #saveWhileLocked(
    pair: PortalOAuthParams,
    lockedAt: number,
    signal: AbortSignal,
    until: number,
  ): Promise<{ inFlight: Promise<unknown> | null } | null> {
    const { store, lockTtlMs, secrets } = this.#deps
    const last = Math.min(lockedAt + lockTtlMs / 2, until)
    for (let failures = 0; ; failures += 1) {
      const pending = callStore(() => store.save(pair))
      // Settled: a failure is told by the wait below; an answer that comes after it is the background saver's.
      let answered = false
      pending.then(
        () => {
          answered = true
        },
        () => {
          answered = true
        },
      )
      const left = until - performance.now()
      if (left <= 0 || signal.aborted) return { inFlight: pending }
      try {
        await answerWithin('saving the new pair', pending, { ms: left, signal, secrets })
        return null
      } catch (error) {
        const inFlight = answered ? null : pending
        if (signal.aborted) return { inFlight }
        if (failures === 0)
          this.failed('saving the new pair (asking again; the lock is kept meanwhile)', error)
        if (inFlight || performance.now() + LOCK_RETRY_MS >= last) return { inFlight }
        const waited = await abortableSleep(LOCK_RETRY_MS, signal).then(
          () => true,
          () => false,
        )
        if (!waited) return { inFlight: null }
      }
    }
  }

  /**
   * Gives the lock back; resolves whether the store answered. A failure is logged (the lock then ends at its TTL), a
   * store that does not answer is left.
   */
  async #unlock(memberId: string, owner: string, until: number): Promise<boolean> {
    const { store, secrets } = this.#deps
    const pending = callStore(() => store.unlock(memberId, owner))
    return answerWithin('unlocking', pending, { ms: this.#waitUntil(until), secrets }).then(
      () => true,
      (error: unknown) => {
        this.failed('unlocking', error)
        return false
      },
    )
  }

  /** Why the store recorded `previous` dead, if it did (a store without dead marks: never). */
  async #deadReason(
    previous: PortalOAuthParams,
    signal: AbortSignal,
    until: number,
  ): Promise<DeadPairReason | null> {
    const { store, secrets } = this.#deps
    if (typeof store.deadReason !== 'function') return null
    const pending = callStore(() => store.deadReason?.(previous.memberId, previous.refreshToken) ?? null)
    const what = 'reading whether the pair was recorded dead'
    return answerWithin(what, pending, { ms: this.#waitUntil(until), signal, secrets })
  }

  /** Records in the store that `previous` died of `error`, for the instances that join later; a failure is logged. */
  async #recordDeath(previous: PortalOAuthParams, error: unknown, until: number): Promise<void> {
    const { store, secrets } = this.#deps
    if (!(error instanceof RefreshTokenError) || typeof store.markDead !== 'function') return
    const reason = { code: error.code, description: error.description, status: error.status }
    const pending = callStore(() => store.markDead?.(previous.memberId, previous.refreshToken, reason))
    await answerWithin('recording the dead pair', pending, { ms: this.#waitUntil(until), secrets }).catch(
      (failure: unknown) => this.failed('recording the dead pair', failure),
    )
  }

  /**
   * Asks for the portal's lock until the store answers. A store that keeps answering with a failure (READONLY) ends
   * the attempt after {@link LOCK_FAILURES_MS}, with its first failure; one that knows its backend is down is asked
   * again once it is up, while the attempt lasts; one that does not answer is asked while the attempt lasts, so that a
   * request is waiting when it answers again, and the attempt ends at the refresh timeout (callers are told the
   * store's failure then, see {@link fault}). No refresh is sent without the lock: with
   * single-use refresh tokens, two instances refreshing at once would kill the pair of one of them, and a pair only
   * one process knows is lost with it. Callers wait within their own timeouts meanwhile.
   */
  async #lockOnceReachable(memberId: string, signal: AbortSignal): Promise<string | null> {
    /** When the first failure this attempt told of came: a store that is down tells of its own. */
    let firstFailure: number | null = null
    let first: unknown = null
    for (;;) {
      const asked = performance.now()
      try {
        const owner = await this.#lockOnce(memberId, signal)
        this.#fault = null
        if (firstFailure !== null) this.#deps.logger.info('token store answers again; the refresh goes on')
        return owner
      } catch (error) {
        if (signal.aborted) throw error
        if (first === null) {
          first = error
          this.#fault = toError(error, this.#deps.secrets)
        }
        // A store that knows it is down is not asked again until it is up: the attempt waits, within its deadline.
        const health = this.#deps.store.health
        if (health && !health.up) {
          await health.whenUp(signal).catch(() => undefined)
          if (signal.aborted) throw first
          continue
        }
        const now = performance.now()
        if (firstFailure === null) {
          firstFailure = now
          this.failed('taking the refresh lock (asking again)', error)
        }
        const answered = now - asked < LOCK_FAILURES_MS
        if (answered && now - firstFailure >= LOCK_FAILURES_MS) throw first
        await abortableSleep(LOCK_RETRY_MS, signal).catch(() => undefined)
        if (signal.aborted) throw first
      }
    }
  }

  /**
   * One request for the lock, waited for while the attempt lasts (the store's own timeout bounds it sooner); a lock the
   * store grants after the attempt gave up on it is given back at once.
   */
  async #lockOnce(memberId: string, signal: AbortSignal): Promise<string | null> {
    const { store, lockTtlMs, secrets } = this.#deps
    const pending = callStore(() => store.lock(memberId, lockTtlMs))
    try {
      return await answerWithin('taking the refresh lock (no refresh is sent without it)', pending, {
        ms: Number.POSITIVE_INFINITY,
        signal,
        secrets,
      })
    } catch (error) {
      pending
        .then((late) => (late ? callStore(() => store.unlock(memberId, late)) : false))
        .catch(() => undefined)
      throw error
    }
  }

  /**
   * Waits until the store says the pair changed or the lock was released, or the attempt ends. A store that fails to
   * tell is looked at again after a pause instead.
   */
  async #lockReleased(memberId: string, signal: AbortSignal): Promise<void> {
    const { store, lockTtlMs } = this.#deps
    try {
      await raceAbort(
        callStore(() => store.changed(memberId, lockTtlMs, signal)),
        signal,
      )
    } catch {
      await abortableSleep(LOCK_RETRY_MS, signal).catch(() => undefined)
    }
  }

  /** The pair held came from the store: the first look at it is skipped. */
  markSynced(): void {
    this.#synced = true
  }

  /** Saves a pair `setAuthOptions()` brought; a failure is logged, the pair stays in use. */
  saveReplaced(params: PortalOAuthParams): void {
    callStore(() => this.#deps.store.save(params)).catch((error: unknown) =>
      this.failed('saving the replaced pair', error),
    )
  }

  /**
   * The store said it holds a pair expiring at `expires` (`null`: none, it lost its data). A newer pair held here
   * goes back into it, so that instances holding an older one find it. Newest wins in the store, so an instance
   * holding an older pair never pushes back over a newer one. A store that does not answer within the lock's TTL is
   * left, and asked again at a later call.
   */
  putBackIfOlder(expires: number | null): void {
    if (this.#puttingBack || this.#holder.closed()) return
    const held = this.#holder.pair()
    if (expires !== null && expires >= held.expires) return
    const { store, lockTtlMs, secrets } = this.#deps
    this.#puttingBack = answerWithin(
      'putting the pair back',
      callStore(() => store.save(held)),
      {
        ms: lockTtlMs,
        secrets,
      },
    )
      .then(
        () =>
          this.#deps.logger.warn('token store held an older pair or none; the pair held here was put back'),
        (error: unknown) => this.failed('putting the pair back', error),
      )
      .finally(() => {
        this.#puttingBack = null
      })
  }

  /**
   * Logs a failure of the store, unless the store knows it is down (it said so itself, once); the instance goes on with
   * the pair it holds.
   */
  failed(what: string, error: unknown): void {
    if (this.#deps.store.health?.up === false) return
    this.#deps.logger.error(`token store failed ${what}`, { error: toError(error, this.#deps.secrets) })
  }

  /**
   * The first look at the store: a newer pair there wins; otherwise the store gets ours (also after it lost its
   * data). Each store call waits at most the lock's TTL, so that a store that never answers does not keep the look
   * pending for good: the next call looks again.
   */
  #sync(): Promise<void> {
    this.#syncing ??= (async () => {
      const holder = this.#holder
      const generation = holder.generation()
      const held = holder.pair()
      const { store, lockTtlMs, secrets } = this.#deps
      try {
        const reading = callStore(() => store.load(held.memberId))
        const stored = await answerWithin('reading the pair', reading, { ms: lockTtlMs, secrets })
        // On equal expiry the store wins: refreshed pairs are written there, a constructor's pair may be stale.
        if (stored && stored.expires >= held.expires && stored.refreshToken !== held.refreshToken) {
          // A refresh or a replacement that started meanwhile decides; it consults the store itself.
          if (holder.generation() !== generation || holder.state() === 'refreshing') return
          holder.adopt(stored, true)
        } else if (stored?.refreshToken !== held.refreshToken) {
          // The store holds none, or an older pair: it gets ours. The same pair is left as it is (no write, no publish).
          const saving = callStore(() => store.save(held))
          await answerWithin('seeding the pair', saving, { ms: lockTtlMs, secrets })
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
    const stored = await this.#newerInStore(holder.pair(), 'reading the pair', this.#deps.lockTtlMs).catch(
      () => null,
    )
    if (stored && holder.generation() === generation && holder.state() === 'dead') holder.adopt(stored, true)
  }

  /** Takes the store's pair, within a refresh attempt, when another instance refreshed since `previous`. */
  async #adoptNewer(
    previous: PortalOAuthParams,
    generation: number,
    signal: AbortSignal,
    until: number,
  ): Promise<AccessTokenRefreshOutput | null> {
    const what = 'reading the pair under the refresh lock (no refresh is sent without it)'
    const stored = await this.#newerInStore(previous, what, this.#waitUntil(until), signal)
    if (!stored || this.#holder.generation() !== generation) return null
    this.#holder.adopt(stored, false)
    return { expires: stored.expires, fromStore: true }
  }

  /** The store's pair when it is newer than `previous` (another rotation), else `null`; read within `ms`. */
  async #newerInStore(
    previous: PortalOAuthParams,
    what: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<PortalOAuthParams | null> {
    const { store, secrets } = this.#deps
    const reading = callStore(() => store.load(previous.memberId))
    const stored = await answerWithin(what, reading, { ms, signal, secrets })
    if (!stored || stored.refreshToken === previous.refreshToken || stored.expires < previous.expires)
      return null
    return stored
  }
}
