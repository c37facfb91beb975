import type { TokenStore } from '../../src/index.js'
import type { StoreMethod } from './faulty-store.js'
import { WrappingStore } from './wrapping-store.js'

/** A store with every optional method but `health` (a circuit breaker, Redis's own): `MemoryStore`, or a test double around one. */
export type FullStore = Required<Omit<TokenStore, 'health'>>

/**
 * One process's view of a shared store (a `MemoryStore`, or a test double around one) that the process can be cut off
 * from, as a process whose Redis
 * connection is lost in a failover while the others reach the new master: the emulator has no store, and a real
 * Redis cannot fail the commands of one client only. While `cutOff` holds, each call of a method it names rejects
 * without reaching the shared store; `'all'` names every method.
 */
export class CutOffStore extends WrappingStore {
  readonly #shared: FullStore
  /** The methods that fail now: none, some, or all. */
  cutOff: ReadonlySet<keyof TokenStore> | 'all' = new Set()

  constructor(shared: FullStore) {
    super()
    this.#shared = shared
  }

  protected target(): FullStore {
    return this.#shared
  }

  override close(): Promise<void> {
    return Promise.resolve()
  }

  protected pass<T>(method: StoreMethod, work: () => Promise<T>): Promise<T> {
    if (this.cutOff === 'all' || this.cutOff.has(method))
      return Promise.reject(new Error(`store ${method}: connection is closed`))
    return work()
  }
}
