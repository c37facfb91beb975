import { type Actor, createActor, fromPromise } from 'xstate'
import { storeHealthMachine } from '../../machines/store-health.machine.js'
import type { StoreHealthState } from '../../machines/store-health.types.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { InspectOption } from '../types/inspect-option.js'

export type { StoreHealthState } from '../../machines/store-health.types.js'

/**
 * What a shared store tells of its backend (`RedisStore`'s circuit breaker, docs/redis.md "When Redis is down"): the
 * auth manager and the limiter ask it, instead of each waiting for a backend known to be down. Optional on a
 * {@link TokenStore}: a store without it is asked every time.
 */
export interface StoreHealth {
  /**
   * `up`: operations are sent. `suspect`: an operation failed, one probe tells an outage from a blip. `down`: the
   * backend is known unreachable, until the cool-down ends. `probing`: down, one probe in flight. Operations are refused
   * at once in all but `up`.
   */
  readonly state: StoreHealthState
  /** Whether the store is `up`: read on every call, so a plain field. */
  readonly up: boolean
  /**
   * The share of each portal's bucket (its burst and its drain rate) an instance paces with while the store is not
   * up, 0 < share <= 1: with N processes going local at once, N times the share at most 1 keeps them under the portal's
   * limit together.
   */
  readonly localShare: number
  /** Resolves once the store is up (at once when it is); rejects with the signal's reason when it aborts first. */
  whenUp(signal?: AbortSignal): Promise<void>
}

/** What {@link BackendHealth} needs of its store. */
export interface BackendHealthSettings {
  /** The store's name in its messages, for example `RedisStore`. */
  name: string
  /** What the backend is called in the messages, for example `Redis`. */
  backend: string
  /** See {@link StoreHealth.localShare}. */
  localShare: number
  /** The cool-down between a failure (or a failed probe) and the next probe, ms. */
  cooldownMs: number
  /** One operation the backend must answer: resolves when it did, rejects when it failed or did not answer in time. */
  probe: () => Promise<void>
  /** Where the two lines (down, back) go. */
  logger: LoggerInterface
  /** An observer of the machine, as `PortalOAuth`'s `inspect`. */
  inspect?: InspectOption | undefined
}

/** How long the store has been out, since `since` (`performance.now()` ms), in seconds. */
function outFor(since: number | null): string {
  return `${((performance.now() - (since ?? performance.now())) / 1000).toFixed(1)} s`
}

/** Timers of the machine that never keep the process alive: a store that is down must not hold an exiting process. */
const UNREFERENCED_CLOCK = {
  setTimeout: (callback: () => void, ms: number): NodeJS.Timeout => setTimeout(callback, ms).unref(),
  clearTimeout: (timer: NodeJS.Timeout): void => clearTimeout(timer),
}

/**
 * The {@link StoreHealth} of one store, the one owner of its outage path: the store-health machine (created at the
 * first failure, or for an inspector) and a plain mirror of its state for the hot path. The store reports each
 * operation that found the backend unreachable ({@link unreachable}) and each answer while down ({@link answered}),
 * and refuses its operations while {@link up} is false ({@link refusal}).
 */
export class BackendHealth implements StoreHealth {
  readonly #settings: BackendHealthSettings
  #actor: Actor<typeof storeHealthMachine> | null = null
  #up = true
  /** Callers of {@link whenUp} waiting for the store, woken by the machine's next `up`. */
  readonly #waiting = new Set<() => void>()
  #stopped = false

  constructor(settings: BackendHealthSettings) {
    this.#settings = settings
    if (settings.inspect) this.#machine()
  }

  get state(): StoreHealthState {
    return (this.#actor?.getSnapshot().value as StoreHealthState | undefined) ?? 'up'
  }

  get up(): boolean {
    return this.#up
  }

  get localShare(): number {
    return this.#settings.localShare
  }

  whenUp(signal?: AbortSignal): Promise<void> {
    if (this.#up) return Promise.resolve()
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort)
        this.#waiting.delete(done)
        resolve()
      }
      const onAbort = (): void => {
        this.#waiting.delete(done)
        reject(signal?.reason)
      }
      this.#waiting.add(done)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** An operation found the backend unreachable (`reason`: the store's message for it): the store goes down. */
  unreachable(reason: string): void {
    if (this.#up && !this.#stopped)
      this.#machine().send({ type: 'backend.unreachable', reason, at: performance.now() })
  }

  /** The backend answered an operation: while down, the store is up again. */
  answered(): void {
    if (!this.#up && !this.#stopped) this.#machine().send({ type: 'backend.answered' })
  }

  /** The message of an operation (`what`) refused while the store is down. */
  refusal(what: string): string {
    const { name, backend } = this.#settings
    const reason = this.#actor?.getSnapshot().context.reason ?? 'no answer'
    return `${name} ${what}: not sent, ${backend} is unreachable (${reason}); sent again once a probe is answered`
  }

  /** Stops the machine and its timers; waiters are left to their signals, and the store stays as it was. */
  stop(): void {
    this.#stopped = true
    this.#actor?.stop()
  }

  #machine(): Actor<typeof storeHealthMachine> {
    if (this.#actor) return this.#actor
    const { probe, logger, name, backend, localShare, cooldownMs, inspect } = this.#settings
    const machine = storeHealthMachine.provide({
      actors: { probe: fromPromise<void>(() => probe()) },
      actions: {
        reportDown: ({ context }) =>
          logger.warn(
            `${name}: ${backend} is unreachable (${context.reason}); calls go on with the pairs held, paced at ${localShare} of each portal's bucket, and refreshes wait for it; probing it every ${cooldownMs} ms`,
          ),
        reportUp: ({ context }) =>
          logger.info(
            `${name}: ${backend} answers again after ${outFor(context.since)}; back to the shared pairs, lock and buckets`,
          ),
        reportShortOutage: ({ context }) =>
          logger.warn(
            `${name}: ${backend} did not answer for ${outFor(context.since)} (${context.reason}); calls went on with the pairs held, paced at ${localShare} of each portal's bucket; it answers again`,
          ),
      },
    })
    const actor = createActor(machine, {
      input: { cooldownMs },
      clock: UNREFERENCED_CLOCK,
      ...(inspect ? { inspect } : {}),
    })
    actor.subscribe((snapshot) => {
      this.#up = snapshot.value === 'up'
      if (this.#up) for (const wake of [...this.#waiting]) wake()
    })
    this.#actor = actor
    actor.start()
    return actor
  }
}
