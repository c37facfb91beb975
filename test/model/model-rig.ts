import {
  type InspectOption,
  type LoggerInterface,
  MemoryStore,
  PortalOAuth,
  type PortalOAuthParams,
  type RefreshAuthPayload,
  type SharedBucketSettings,
  type SlotAnswer,
  type TokenStore,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, type LogLine } from '../helpers.js'
import { MODEL_SETTINGS } from './access-token.model.js'
import { type Deferred, deferred, ResponseHold } from './response-hold.js'

/** A clock shared by the client and the emulator, set by the test. */
export interface ModelClock {
  /** The current time, ms. */
  now: () => number
  /** Moves the clock to `ms` (forwards or backwards). */
  set: (ms: number) => void
}

/** Real time plus an offset the test sets. */
export function createModelClock(): ModelClock {
  let offset = 0
  return {
    now: () => Date.now() + offset,
    set: (ms) => {
      offset = ms - Date.now()
    },
  }
}

/** What the refresh callback does with the next pair: persist it, throw, or never settle. */
export type CallbackPlan = 'persist' | 'throw' | 'hang'

/**
 * The refresh callback of a path: it records each call, then waits until the path lets it finish the way it
 * planned, so that a path can look at the client while the callback runs.
 */
export class CallbackControl {
  /** Every payload the callback received, in order, recorded when it starts. */
  readonly calls: RefreshAuthPayload[] = []
  /** The payloads the callback persisted (it finished without throwing), in order. */
  readonly persisted: RefreshAuthPayload[] = []
  /** The error the callback throws under the plan `throw`. */
  readonly error = new Error('the store is down')
  #plan: CallbackPlan = 'persist'
  #gate = deferred()
  #started = deferred()

  /** How the next callback ends; it waits for {@link finish} (or forever, for `hang`). */
  plan(plan: CallbackPlan): void {
    this.#plan = plan
    this.#gate = deferred()
    this.#started = deferred()
  }

  /** Resolves once the planned callback has started. */
  get started(): Promise<void> {
    return this.#started.promise
  }

  /** Lets the callback that is waiting finish as planned. */
  finish(): void {
    this.#gate.resolve()
  }

  /** The callback to register on the client. */
  readonly callback = async (payload: RefreshAuthPayload): Promise<void> => {
    const plan = this.#plan
    const gate = this.#gate
    this.calls.push(payload)
    this.#started.resolve()
    if (plan === 'hang') return new Promise<void>(() => {})
    await gate.promise
    if (plan === 'throw') throw this.error
    this.persisted.push(payload)
  }
}

/**
 * The shared store of a path, able to keep one `lock()` waiting. A test double around a real `MemoryStore`: nothing
 * on the wire can hold a store operation, and a path needs the client to stay in `requesting` while another
 * instance's pair is already in the store.
 */
export class HoldableStore implements TokenStore {
  readonly #store = new MemoryStore()
  #hold: { arrived: Deferred; released: Deferred } | null = null

  /** The same store without the hold, for the other instance: only the path's own client is ever held. */
  get shared(): TokenStore {
    return this.#store
  }

  /** Keeps the next `lock()` waiting until {@link release}; `arrived` resolves when it is waiting. */
  holdNextLock(): Promise<void> {
    const hold = { arrived: deferred(), released: deferred() }
    this.#hold = hold
    return hold.arrived.promise
  }

  /** Lets a held `lock()` go on. */
  release(): void {
    this.#hold?.released.resolve()
    this.#hold = null
  }

  async lock(memberId: string, ttlMs: number): Promise<string | null> {
    const hold = this.#hold
    if (hold) {
      hold.arrived.resolve()
      await hold.released.promise
    }
    return this.#store.lock(memberId, ttlMs)
  }

  load(memberId: string): Promise<PortalOAuthParams | null> {
    return this.#store.load(memberId)
  }
  save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    return this.#store.save(params)
  }
  replace(params: PortalOAuthParams): Promise<void> {
    return this.#store.replace(params)
  }
  remove(memberId: string): Promise<void> {
    return this.#store.remove(memberId)
  }
  unlock(memberId: string, owner: string): Promise<boolean> {
    return this.#store.unlock(memberId, owner)
  }
  changed(memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.#store.changed(memberId, timeoutMs, signal)
  }
  takeSlot(memberId: string, bucket: SharedBucketSettings, want?: number): Promise<SlotAnswer> {
    return this.#store.takeSlot(memberId, bucket, want)
  }
  close(): Promise<void> {
    return this.#store.close()
  }
}

/** What one path runs against: its own emulator, a client and another instance on one store, a clock, holds. */
export interface ModelRig {
  clock: ModelClock
  emulator: PortalEmulator
  portal: PortalOAuth
  /** A second instance of the same portal on the same store: "another process" that refreshes the shared pair. */
  other: PortalOAuth
  store: HoldableStore
  hold: ResponseHold
  callback: CallbackControl
  /** Every line the client logged. */
  logLines: LogLine[]
  /** Stops the clients and the emulator. */
  close: () => Promise<void>
}

/** The client options that match the model's settings, so that the client takes the branches the model plans. */
const CLIENT_SETTINGS = {
  refreshRetries: MODEL_SETTINGS.refreshRetries,
  eagerRefreshMs: MODEL_SETTINGS.eagerRefreshMs,
  refreshTimeout: MODEL_SETTINGS.refreshTimeoutMs,
  callbackTimeout: MODEL_SETTINGS.callbackTimeoutMs,
  refreshRetryDelay: MODEL_SETTINGS.retryBaseDelayMs,
}

/**
 * Starts an emulator (no rate or operating limit: a path makes few calls, in bursts), a `PortalOAuth` holding a fresh
 * pair with the model's settings, a controlled refresh callback, and another instance on the same store, all on one
 * test clock. `inspect` observes the first client's actors. One call warms the client up, so that it has read the
 * store before the path starts.
 */
export async function startModelRig(options: { inspect?: InspectOption } = {}): Promise<ModelRig> {
  const clock = createModelClock()
  const emulator = await startPortalEmulator({ now: clock.now, rateLimit: false, operatingLimit: false })
  const hold = new ResponseHold()
  const store = new HoldableStore()
  const logger: LoggerInterface & { lines: LogLine[] } = createMemoryLogger()
  const pair = emulator.issueAuthParams()
  const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
  const portal = new PortalOAuth(pair, secret, {
    now: clock.now,
    logger,
    store,
    httpOptions: { adapter: hold.fetch },
    ...CLIENT_SETTINGS,
    ...(options.inspect ? { inspect: options.inspect } : {}),
  })
  const other = new PortalOAuth(pair, secret, {
    now: clock.now,
    logger: createMemoryLogger(),
    store: store.shared,
  })
  const callback = new CallbackControl()
  portal.setCallbackRefreshAuth(callback.callback)
  await portal.actions.v2.call.make({ method: 'server.time', requestId: 'warm-up' })
  emulator.log.clear()
  return {
    clock,
    emulator,
    portal,
    other,
    store,
    hold,
    callback,
    logLines: logger.lines,
    close: async () => {
      hold.release()
      store.release()
      callback.finish()
      await Promise.all([portal.destroy(), other.destroy()])
      await emulator.close()
    },
  }
}
