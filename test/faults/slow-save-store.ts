import { setTimeout as sleep } from 'node:timers/promises'
import { MemoryStore, type PortalOAuthParams } from '../../src/index.js'

/**
 * A `MemoryStore` whose saves are slow or hang, as a stalled or overloaded Redis's are: the emulator has no store, and
 * a real Redis cannot be made to slow one command down by a chosen amount. `saveDelayMs` delays each save's work and
 * answer; while `hanging`, a save never answers and does nothing (the command was lost with its connection).
 */
export class SlowSaveStore extends MemoryStore {
  /** How long a save takes, ms: the pair lands in the store and the answer comes after it. */
  saveDelayMs = 0
  /** While set, a save neither lands nor answers. */
  hanging = false
  /** Saves asked for, slow, hung or not. */
  saves = 0

  override async save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    this.saves += 1
    if (this.hanging) return new Promise<PortalOAuthParams>(() => {})
    if (this.saveDelayMs > 0) await sleep(this.saveDelayMs)
    return super.save(params)
  }
}
