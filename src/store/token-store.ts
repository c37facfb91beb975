import type { PortalOAuthParams } from '../types/auth.js'
import type { StoreHealth } from './store-health.js'

/** The settings of a portal's leaky bucket as a shared store applies them. */
export interface SharedBucketSettings {
  /** Requests the bucket holds before the portal rejects (the portal's burst limit). */
  burstLimit: number
  /** Requests drained per second. */
  drainRate: number
}

/** Why the OAuth server refused a pair's refresh token, as a store records it for instances that join later. */
export interface DeadPairReason {
  /** OAuth error code, for example `invalid_grant`. */
  code: string
  /** OAuth `error_description`, empty when the server sent none. */
  description: string
  /** HTTP status of the token endpoint's answer. */
  status: number
}

/**
 * A refresh whose outcome the store does not know yet: its holder marked the refresh token before presenting it
 * ({@link TokenStore.markSpending}) and has neither saved a newer pair nor given the lock back since.
 */
export interface SpendingMark {
  /** The lock owner that presented the refresh token. */
  owner: string
  /** When it marked it, ms since the epoch (the marking process's clock). */
  since: number
}

/** What the shared bucket answers. */
export interface SlotAnswer {
  /** 0 when a slot was taken, else the ms to wait before asking again. */
  waitMs: number
  /** `expires` of the pair the store holds for the portal, or `null` when it holds none (it lost its data). */
  storedExpires: number | null
  /** Slots taken: the ones wanted while the bucket stays at most half full with them, else 1, or 0 (wait). */
  granted: number
  /**
   * The portal was removed (an uninstall, handled by any process) and not installed again: calls reject with
   * `JSSDK_PORTAL_NOT_INSTALLED` and the pair held is never written back. Optional for stores that cannot tell.
   */
  removed?: boolean
}

/**
 * Where the instances of every process keep what one portal (`memberId`) shares: its newest token pair, the lock
 * that lets one of them refresh at a time, and its leaky bucket. `MemoryStore` keeps it in this process;
 * `RedisStore` (`portal-oauth/redis`) in Redis, for several processes. Every method is safe to call concurrently.
 */
export interface TokenStore {
  /** The pair held for the portal, or `null` when the store knows no such portal. */
  load(memberId: string): Promise<PortalOAuthParams | null>
  /**
   * Keeps `params` unless the store holds a newer pair of the portal (a later `expires`); resolves to the pair the
   * store holds afterwards. Used after a refresh and to seed a store that lost its data. A portal removed by
   * {@link remove} stays removed: nothing is written until {@link replace}, and `params` comes back.
   */
  save(params: PortalOAuthParams): Promise<PortalOAuthParams>
  /** Keeps `params` whatever the store holds (an install or update event brings a new pair), also after a removal. */
  replace(params: PortalOAuthParams): Promise<void>
  /**
   * Forgets the portal: its pair, lock and bucket (an uninstall). It stays marked as removed, so that instances still
   * holding its pair learn of it ({@link SlotAnswer.removed}) and never write it back, until {@link replace}.
   */
  remove(memberId: string): Promise<void>
  /**
   * Takes the portal's refresh lock for `ttlMs` unless another holder has it; resolves to an owner token, or `null`
   * when it is held. A holder that dies frees it when the TTL ends.
   */
  lock(memberId: string, ttlMs: number): Promise<string | null>
  /**
   * Releases the lock when `owner` still holds it, and wakes {@link changed}; resolves to whether it did. A spending
   * mark `owner` left ({@link markSpending}) ends too, whoever holds the lock: its holder knows the outcome.
   */
  unlock(memberId: string, owner: string): Promise<boolean>
  /**
   * Extends the lock of `owner` to `ttlMs` from now, or takes it again for `owner` when it is free (it expired), and
   * extends the spending mark `owner` left as {@link markSpending} set it; resolves to whether `owner` holds the lock
   * now. Used while a refreshed pair waits for its save. Optional: without it the lock ends at its TTL.
   */
  renewLock?(memberId: string, owner: string, ttlMs: number): Promise<boolean>
  /**
   * Marks, while `owner` holds the lock, that it is about to present `refreshToken` to the OAuth server, for
   * `ttlMs`: a holder that takes the lock after this one's ended asks {@link spending} before it presents the same
   * token, and waits for this holder's save. Resolves to whether it marked (false: `owner` no longer holds the lock,
   * and nothing may be sent). Optional, with {@link spending}.
   */
  markSpending?(memberId: string, refreshToken: string, owner: string, ttlMs: number): Promise<boolean>
  /** The mark another holder left for `refreshToken` and has not ended, or `null` (see {@link markSpending}). */
  spending?(memberId: string, refreshToken: string): Promise<SpendingMark | null>
  /**
   * Resolves when the portal's pair may have changed (another holder saved or replaced it) or its lock was released,
   * after `timeoutMs` at the latest, or when `signal` aborts. Callers re-read the pair with {@link load}.
   */
  changed(memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void>
  /**
   * Takes slots of the portal's shared leaky bucket (`want`, default 1, while the bucket stays at most half full with
   * them, else one): `waitMs` is 0 when slots were taken, else the ms to wait before asking again. In the same
   * round trip it tells the expiry of the pair the store holds, so that an instance holding a newer pair (or any
   * pair, after the store lost its data) notices at its next call and puts it back. `timeoutMs`, when given, is the
   * longest wait for the answer the caller has left (its own timeout); a store rejects after it.
   */
  takeSlot(
    memberId: string,
    bucket: SharedBucketSettings,
    want?: number,
    timeoutMs?: number,
  ): Promise<SlotAnswer>
  /**
   * Records that the OAuth server refused the refresh token of the pair the store holds (it died), unless the store
   * holds another pair by now. Instances that join later learn it from {@link deadReason} and send nothing. A newer
   * pair (`save`, `replace`: a re-authorisation, an update event) ends it. Optional: without it, every instance that
   * joins spends one refresh request to learn it.
   */
  markDead?(memberId: string, refreshToken: string, reason: DeadPairReason): Promise<void>
  /** Why the pair with `refreshToken` was recorded dead, or `null` when it was not (see {@link markDead}). */
  deadReason?(memberId: string, refreshToken: string): Promise<DeadPairReason | null>
  /** Releases what the store holds in this process (subscriptions, timers); the backend's data stays. */
  close(): Promise<void>
  /**
   * Whether the store's backend answers (`RedisStore`'s circuit breaker). While it is not up, calls go on with the
   * pair held, paced by its {@link StoreHealth.localShare} of the bucket, without asking the store, and refreshes wait
   * for it to be up. Optional: a store without it is asked every time.
   */
  readonly health?: StoreHealth
}
