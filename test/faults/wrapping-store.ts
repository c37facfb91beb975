import type {
  DeadPairReason,
  PortalOAuthParams,
  SharedBucketSettings,
  SlotAnswer,
  SpendingMark,
  TokenStore,
} from '../../src/index.js'
import type { FullStore } from './cut-off-store.js'
import type { StoreMethod } from './faulty-store.js'

/**
 * A test double around a store with every optional method: each call goes through {@link pass}, which decides how
 * (and whether) it reaches {@link target}. The doubles differ only in `pass`, so the delegation is written once.
 */
export abstract class WrappingStore implements TokenStore {
  /** The store the calls reach. */
  protected abstract target(): FullStore

  /** Runs `work` as the call of `method`, or not, as the double decides. */
  protected abstract pass<T>(method: StoreMethod, work: () => Promise<T>): Promise<T>

  load(memberId: string): Promise<PortalOAuthParams | null> {
    return this.pass('load', () => this.target().load(memberId))
  }

  save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    return this.pass('save', () => this.target().save(params))
  }

  replace(params: PortalOAuthParams): Promise<void> {
    return this.pass('replace', () => this.target().replace(params))
  }

  remove(memberId: string): Promise<void> {
    return this.pass('remove', () => this.target().remove(memberId))
  }

  lock(memberId: string, ttlMs: number): Promise<string | null> {
    return this.pass('lock', () => this.target().lock(memberId, ttlMs))
  }

  unlock(memberId: string, owner: string): Promise<boolean> {
    return this.pass('unlock', () => this.target().unlock(memberId, owner))
  }

  renewLock(memberId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.pass('renewLock', () => this.target().renewLock(memberId, owner, ttlMs))
  }

  markSpending(memberId: string, refreshToken: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.pass('markSpending', () => this.target().markSpending(memberId, refreshToken, owner, ttlMs))
  }

  spending(memberId: string, refreshToken: string): Promise<SpendingMark | null> {
    return this.pass('spending', () => this.target().spending(memberId, refreshToken))
  }

  changed(memberId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.pass('changed', () => this.target().changed(memberId, timeoutMs, signal))
  }

  takeSlot(memberId: string, bucket: SharedBucketSettings, want?: number): Promise<SlotAnswer> {
    return this.pass('takeSlot', () => this.target().takeSlot(memberId, bucket, want))
  }

  markDead(memberId: string, refreshToken: string, reason: DeadPairReason): Promise<void> {
    return this.pass('markDead', () => this.target().markDead(memberId, refreshToken, reason))
  }

  deadReason(memberId: string, refreshToken: string): Promise<DeadPairReason | null> {
    return this.pass('deadReason', () => this.target().deadReason(memberId, refreshToken))
  }

  close(): Promise<void> {
    return this.pass('close', () => this.target().close())
  }
}
