import type {
  DeadPairReason,
  PortalOAuthParams,
  SharedBucketSettings,
  SlotAnswer,
  SpendingMark,
  TokenStore,
} from '../../src/index.js'

/** A store with every optional method but `health` (a circuit breaker, Redis's own): `MemoryStore`, or a test double around one. */
export type FullStore = Required<Omit<TokenStore, 'health'>>

/**
 * One process's view of a shared store (a `MemoryStore`, or a test double around one) that the process can be cut off
 * from, as a process whose Redis
 * connection is lost in a failover while the others reach the new master: the emulator has no store, and a real
 * Redis cannot fail the commands of one client only. While `cutOff` holds, each call of a method it names rejects
 * without reaching the shared store; `'all'` names every method.
 */
export class CutOffStore implements TokenStore {
  readonly #shared: FullStore
  /** The methods that fail now: none, some, or all. */
  cutOff: ReadonlySet<keyof TokenStore> | 'all' = new Set()

  constructor(shared: FullStore) {
    this.#shared = shared
  }

  load(memberId: string): Promise<PortalOAuthParams | null> {
    return this.#call('load', () => this.#shared.load(memberId))
  }

  save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    return this.#call('save', () => this.#shared.save(params))
  }

  replace(params: PortalOAuthParams): Promise<void> {
    return this.#call('replace', () => this.#shared.replace(params))
  }

  remove(memberId: string): Promise<void> {
    return this.#call('remove', () => this.#shared.remove(memberId))
  }

  lock(memberId: string, ttlMs: number): Promise<string | null> {
    return this.#call('lock', () => this.#shared.lock(memberId, ttlMs))
  }

  unlock(memberId: string, owner: string): Promise<boolean> {
    return this.#call('unlock', () => this.#shared.unlock(memberId, owner))
  }

  renewLock(memberId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#call('renewLock', () => this.#shared.renewLock(memberId, owner, ttlMs))
  }

  markSpending(memberId: string, refreshToken: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#call('markSpending', () => this.#shared.markSpending(memberId, refreshToken, owner, ttlMs))
  }

  spending(memberId: string, refreshToken: string): Promise<SpendingMark | null> {
    return this.#call('spending', () => this.#shared.spending(memberId, refreshToken))
  }

  changed(memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.#call('changed', () => this.#shared.changed(memberId, timeoutMs, signal))
  }

  takeSlot(memberId: string, bucket: SharedBucketSettings, want?: number): Promise<SlotAnswer> {
    return this.#call('takeSlot', () => this.#shared.takeSlot(memberId, bucket, want))
  }

  markDead(memberId: string, refreshToken: string, reason: DeadPairReason): Promise<void> {
    return this.#call('markDead', () => this.#shared.markDead(memberId, refreshToken, reason))
  }

  deadReason(memberId: string, refreshToken: string): Promise<DeadPairReason | null> {
    return this.#call('deadReason', () => this.#shared.deadReason(memberId, refreshToken))
  }

  close(): Promise<void> {
    return Promise.resolve()
  }

  #call<T>(method: keyof TokenStore, work: () => Promise<T>): Promise<T> {
    if (this.cutOff === 'all' || this.cutOff.has(method))
      return Promise.reject(new Error(`store ${method}: connection is closed`))
    return work()
  }
}
