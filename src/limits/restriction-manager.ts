import { abortableSleep } from '../core/abortable-sleep.js'
import { traceLimiterWait } from '../diagnostics/channels.js'
import type { PayloadTime } from '../results/ajax-result.js'
import { LeakyBucket } from './leaky-bucket.js'
import { OperatingLimiter } from './operating-limiter.js'
import { ParamsFactory, unknownRestrictionKeys } from './params-factory.js'
import type { RestrictionParams, RestrictionParamsInput } from './restriction-params.js'
import type { SharedBucket } from './shared-bucket.js'

/** Where unknown keys are reported: the instance's logger. */
type UnknownKeysLogger = { warn(message: string, context?: Record<string, unknown>): void }

/** Complete settings, validated and frozen to the leaves, that instances take as they are (see {@link sharedParams}). */
const SHARED = new WeakSet<RestrictionParams>()

/**
 * `params` (complete and validated, by `ParamsFactory.merge`) frozen to the leaves, for every instance given them to
 * share instead of copying: settings are replaced, never edited. A fleet gives each of its clients the same.
 */
export function sharedParams(params: RestrictionParams): RestrictionParams {
  SHARED.add(deepFreeze(params))
  return params
}

/** The default settings, shared by every instance given no settings of its own. */
const SHARED_DEFAULTS: RestrictionParams = sharedParams(ParamsFactory.getDefault())

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === 'object' && inner !== null) deepFreeze(inner)
  return Object.freeze(value)
}

/**
 * Everything that keeps one instance under the portal's limits: the leaky bucket (shared by v2 and v3), the
 * per-method operating budget and the retry settings. Parts with timers are created on first use, so an idle
 * instance costs little.
 */
export class RestrictionManager {
  #params: RestrictionParams
  #bucket: LeakyBucket | null = null
  #shared: SharedBucket | null = null
  #operating: OperatingLimiter | null = null
  readonly #logger: UnknownKeysLogger | undefined
  /**
   * Aborted by `destroy()`: ends the operating delays being waited out, which no bucket holds. Created when first
   * needed (an idle instance holds none; see `#stoppedSignal()`).
   */
  #stopped: AbortController | null = null

  /** `logger` hears of unknown keys, which are dropped like other option typos. */
  constructor(
    params: RestrictionParamsInput = SHARED_DEFAULTS,
    base: RestrictionParams = SHARED_DEFAULTS,
    logger?: UnknownKeysLogger,
  ) {
    this.#logger = logger
    // Settings are replaced, never edited: instances given shared settings (none: the defaults) keep them as they are.
    this.#params =
      base === SHARED_DEFAULTS && SHARED.has(params as RestrictionParams)
        ? (params as RestrictionParams)
        : ParamsFactory.merge(base, params)
    this.#warnUnknown('restrictionParams', params)
  }

  /** The settings in force (a copy). */
  get params(): RestrictionParams {
    return structuredClone(this.#params)
  }

  /** The settings in force, not copied: for reading on every call (`setParams` replaces the object, never edits it). */
  get settings(): Readonly<RestrictionParams> {
    return this.#params
  }

  /** Changes the settings at run time; groups are merged, so a partial change keeps the rest. */
  setParams(changes: RestrictionParamsInput): void {
    this.#params = ParamsFactory.merge(this.#params, changes)
    this.#warnUnknown('setRestrictionManagerParams', changes)
    this.#bucket?.configure(this.#localLimits())
    this.#operating?.configure(this.#params.operatingLimit, this.#params.adaptiveConfig)
  }

  /**
   * Paces with the portal's bucket in a shared store from now on (every instance of the portal in every process
   * under one limit), instead of this instance's own bucket.
   */
  useSharedBucket(bucket: SharedBucket): void {
    this.#shared = bucket
    this.#bucket?.configure(this.#localLimits())
  }

  /**
   * Waits until `method` may be sent: its operating delay, then a slot of the bucket. `waitMs`, what the call has
   * left of its timeout, bounds each round trip to a shared bucket.
   */
  acquire(method: string, signal?: AbortSignal, waitMs?: number): Promise<void> {
    if (this.#shared)
      return traceLimiterWait(this.#acquireShared(this.#shared, method, signal, waitMs), method, 'rate')
    const delay = this.#operating?.delayFor(method) ?? 0
    // No async frame when nothing waits: this runs on every attempt of every call.
    if (delay <= 0) {
      const bucket = this.#bucketInstance()
      const slot = bucket.take(signal)
      // Only a caller that found the bucket empty is queued; the free path is left as it is.
      return bucket.queued > 0 ? traceLimiterWait(slot, method, 'rate') : slot
    }
    const waiting = this.#operatingDelay(delay, signal).then(() => this.#bucketInstance().take(signal))
    return traceLimiterWait(waiting, method, 'operating')
  }

  /**
   * Takes a slot for `method` at once when one is free and nothing else is to be waited for (no shared bucket, no
   * operating delay, nobody queued, the signal not aborted). `false`: {@link acquire} waits for it instead.
   */
  tryAcquire(method: string, signal?: AbortSignal): boolean {
    if (this.#shared || signal?.aborted || (this.#operating?.delayFor(method) ?? 0) > 0) return false
    return this.#bucketInstance().tryTake()
  }

  async #acquireShared(
    shared: SharedBucket,
    method: string,
    signal: AbortSignal | undefined,
    waitMs: number | undefined,
  ): Promise<void> {
    const delay = this.#operating?.delayFor(method) ?? 0
    if (delay > 0) await this.#operatingDelay(delay, signal)
    // A store that does not answer must not stop the calls: they are paced by the instance's own bucket meanwhile.
    if (!(await shared.take(this.#params.rateLimit, signal, waitMs)))
      await this.#bucketInstance().take(signal)
  }

  /** Runs a whole call of `method`, one at a time when the method is heavy. */
  run<T>(method: string, task: () => Promise<T>): Promise<T> {
    return this.#operating ? this.#operating.run(method, task) : task()
  }

  /** Notes an answer: the bucket's drain clock, and the `time` block for the operating budget. */
  record(method: string, time: PayloadTime | undefined): void {
    this.#bucket?.answered()
    if (typeof time?.operating === 'number')
      this.#operatingInstance().record(method, time.operating, time.operating_reset_at)
  }

  /** The portal said `QUERY_LIMIT_EXCEEDED`: let the bucket drain before the next request (when adaptive). */
  rateLimited(): void {
    if (this.#params.rateLimit.adaptiveEnabled) this.#bucketInstance().drain()
  }

  /** The portal said `OPERATION_TIME_LIMIT` for `method`: ms to wait before a retry, or `null` to give up. */
  operatingLimited(method: string): number | null {
    return this.#operatingInstance().blocked(method, this.#params.retryDelay)
  }

  /** Stops timers and drops queued requests. */
  async destroy(): Promise<void> {
    // Created here when nothing asked for it yet, so that a later wait starts aborted.
    this.#stopped ??= new AbortController()
    this.#stopped.abort(new Error('RestrictionManager: destroyed'))
    await Promise.all([this.#bucket?.destroy(), this.#operating?.destroy()])
    this.#bucket = null
    this.#operating = null
  }

  /** Sleeps `delay` ms; ends early when the caller's signal aborts or the instance is destroyed. */
  #operatingDelay(delay: number, signal: AbortSignal | undefined): Promise<void> {
    const stopped = this.#stoppedSignal()
    return abortableSleep(delay, signal ? AbortSignal.any([signal, stopped]) : stopped)
  }

  /** The signal `destroy()` aborts (already aborted after it). */
  #stoppedSignal(): AbortSignal {
    this.#stopped ??= new AbortController()
    return this.#stopped.signal
  }

  #warnUnknown(where: string, changes: RestrictionParamsInput): void {
    const unknown = unknownRestrictionKeys(changes)
    if (unknown.length > 0)
      this.#logger?.warn(`${where}: dropped unknown option(s) ${unknown.join(', ')}`, { dropped: unknown })
  }

  #bucketInstance(): LeakyBucket {
    this.#bucket ??= new LeakyBucket(this.#localLimits())
    return this.#bucket
  }

  /**
   * The limits of the instance's own bucket: the portal's; with a shared bucket, which it stands in for while the store
   * cannot be asked, the share of them the store allows each process (every process goes local at once).
   */
  #localLimits(): { burstLimit: number; drainRate: number } {
    const { burstLimit, drainRate } = this.#params.rateLimit
    const share = this.#shared?.localShare ?? 1
    return share === 1
      ? { burstLimit, drainRate }
      : { burstLimit: burstLimit * share, drainRate: drainRate * share }
  }

  #operatingInstance(): OperatingLimiter {
    this.#operating ??= new OperatingLimiter(this.#params.operatingLimit, this.#params.adaptiveConfig)
    return this.#operating
  }
}
