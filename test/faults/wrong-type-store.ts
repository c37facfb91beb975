import { setImmediate as nextTurn } from 'node:timers/promises'
import { MemoryStore, type PortalOAuthParams } from '../../src/index.js'

/**
 * A `MemoryStore` whose reads fail while it holds a granted refresh lock, as Redis answers `WRONGTYPE` when the
 * pair's key holds another type, or a read times out during a failover; every answer comes on a later turn of the
 * event loop, as a store's across a network does. A test double because the emulator has no store to break.
 */
export class WrongTypeAfterLock extends MemoryStore {
  /** What every read rejects with while the lock is held. */
  readonly failure = new Error('WRONGTYPE Operation against a key holding the wrong kind of value')
  #locked = false

  override async lock(memberId: string, ttlMs: number): Promise<string | null> {
    await nextTurn()
    const owner = await super.lock(memberId, ttlMs)
    if (owner) this.#locked = true
    return owner
  }

  override async unlock(memberId: string, owner: string): Promise<boolean> {
    await nextTurn()
    const released = await super.unlock(memberId, owner)
    if (released) this.#locked = false
    return released
  }

  override async load(memberId: string): Promise<PortalOAuthParams | null> {
    await nextTurn()
    if (this.#locked) throw this.failure
    return super.load(memberId)
  }
}
