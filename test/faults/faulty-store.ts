import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { MemoryStore } from '../../src/index.js'
import { WrappingStore } from './wrapping-store.js'

/** The methods of a `TokenStore`. */
export const STORE_METHODS = [
  'load',
  'save',
  'replace',
  'remove',
  'lock',
  'unlock',
  'changed',
  'takeSlot',
  'markDead',
  'deadReason',
  'close',
] as const

/**
 * The methods a refresh under the lock uses to renew it and to mark the refresh token it presents: kept out of
 * {@link STORE_METHODS}, so that the scenarios the generators drew before them (replayed by seed) stay the same.
 */
export const MARK_METHODS = ['renewLock', 'markSpending', 'spending'] as const

/** A method of a `TokenStore`. */
export type StoreMethod = (typeof STORE_METHODS)[number] | (typeof MARK_METHODS)[number]

/**
 * How one store call goes wrong: `reject` fails without doing anything, `throw` throws before returning a promise,
 * `hang` never answers, `late` does its work at once and answers {@link FaultyStore.lateMs} later (the caller may
 * have given up on it), `lost` does its work and then fails (a command that ran while its answer timed out),
 * `stall` stops the whole store for {@link FaultyStore.lateMs}: this call and every later one wait, then run in the
 * order they came, as a frozen Redis runs its commands.
 */
export type FaultKind = 'reject' | 'throw' | 'hang' | 'late' | 'lost' | 'stall'

/** The `nth` call (from 0) of `method`, or of the store when no method is named, goes wrong as `kind`. */
export interface StoreFault {
  method?: StoreMethod
  nth: number
  kind: FaultKind
}

/**
 * A `MemoryStore` behind faults planned call by call: a test double, since the emulator has no store, and a real
 * Redis cannot be made to fail one chosen command of many. Without faults it is the `MemoryStore` it wraps, except
 * that every call is run on a later turn of the event loop, as a store's across a network is.
 */
export class FaultyStore extends WrappingStore {
  /** The store the calls reach when they are not faulted. */
  readonly inner = new MemoryStore()
  /** The faults still to come. */
  faults: StoreFault[] = []
  /** The faults that happened, in order. */
  readonly injected: StoreFault[] = []
  /** How late a `late` fault answers, and how long a `stall` lasts, ms. */
  lateMs = 500
  readonly #counts = new Map<StoreMethod, number>()
  #calls = 0
  /** While the store stalls: resolves when it runs again. */
  #stalled: Promise<void> | null = null

  protected target(): MemoryStore {
    return this.inner
  }

  /** Runs `work` as the call of `method`, or goes wrong as planned; a `throw` is synchronous, before any promise. */
  protected pass<T>(method: StoreMethod, work: () => Promise<T>): Promise<T> {
    const nth = this.#counts.get(method) ?? 0
    this.#counts.set(method, nth + 1)
    const call = this.#calls
    this.#calls += 1
    const index = this.faults.findIndex((fault) =>
      fault.method === undefined ? fault.nth === call : fault.method === method && fault.nth === nth,
    )
    if (index < 0) return this.#turn().then(work)
    const [fault] = this.faults.splice(index, 1) as [StoreFault]
    this.injected.push({ method, nth: fault.method === undefined ? call : nth, kind: fault.kind })
    switch (fault.kind) {
      case 'throw':
        throw new Error(`store ${method} threw`)
      case 'reject':
        return this.#turn().then(() => Promise.reject(new Error(`store ${method} failed`)))
      case 'hang':
        return new Promise<T>(() => {})
      case 'late': {
        const answer = this.#turn().then(work)
        const later = (): Promise<void> => sleep(this.lateMs)
        return answer.then(
          (value) => later().then(() => value),
          (error: unknown) => later().then(() => Promise.reject(error)),
        )
      }
      case 'lost':
        return this.#turn()
          .then(work)
          .then(() => Promise.reject(new Error(`store ${method}: no answer (it ran)`)))
      case 'stall':
        this.#stalled ??= sleep(this.lateMs).then(() => {
          this.#stalled = null
        })
        return this.#turn().then(work)
    }
  }

  /**
   * When a call may run: on a later turn of the event loop, or, while the store stalls, when it runs again (the calls
   * waiting for it then run in the order they came, before any later one).
   */
  #turn(): Promise<void> {
    return this.#stalled ?? nextTurn()
  }
}
