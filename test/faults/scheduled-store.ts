import type fc from 'fast-check'
import { MemoryStore, type PortalOAuthParams } from '../../src/index.js'
import type { StoreMethod } from './faulty-store.js'
import { WrappingStore } from './wrapping-store.js'

/**
 * How one store call goes wrong. `reject` fails without doing anything, `throw` throws before returning a promise,
 * `hang` never answers and does nothing (the command was lost on its way), `lost` does its work and then fails (its
 * answer was lost), `silent` does its work and never answers, `thenable` answers with a thenable that is not a
 * promise. A call with no fault does its work and answers.
 */
export type ScheduledFaultKind = 'reject' | 'throw' | 'hang' | 'lost' | 'silent' | 'thenable'

/** The `nth` call (from 0) of `method`, or of the store when no method is named, goes wrong as `kind`. */
export interface ScheduledFault {
  method?: StoreMethod
  nth: number
  kind: ScheduledFaultKind
}

/**
 * A `MemoryStore` whose answers come when a fast-check scheduler lets them: a test double, since the emulator has no
 * store, and no real store can be made to answer its calls in a chosen order. Each call does its work when it is made,
 * in the order the calls come, as one Redis server runs the commands it receives; only the answers wait for the
 * scheduler, which releases them in the order it picks (a network that delivers answers late, to several processes).
 * `changed` is the exception: it answers when the store changes or its wait ends, as the `MemoryStore` does, unless a
 * fault says otherwise. Without a scheduler (`scheduler = null`) every call is the `MemoryStore`'s, answered at once.
 */
export class ScheduledStore extends WrappingStore {
  /** The store the calls reach. */
  readonly inner = new MemoryStore()
  /** Where the answers wait; `null`: they come at once (the faults are over). */
  scheduler: fc.Scheduler | null = null
  /** The faults still to come. */
  faults: ScheduledFault[] = []
  /** The faults that happened, in order. */
  readonly injected: ScheduledFault[] = []
  /** Every refresh token the store was asked to keep (`save` or `replace`), in order. */
  readonly written: string[] = []
  readonly #counts = new Map<StoreMethod, number>()
  #calls = 0

  protected target(): MemoryStore {
    return this.inner
  }

  override save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    return this.pass('save', () => {
      this.written.push(params.refreshToken)
      return this.inner.save(params)
    })
  }

  override replace(params: PortalOAuthParams): Promise<void> {
    return this.pass('replace', () => {
      this.written.push(params.refreshToken)
      return this.inner.replace(params)
    })
  }

  override close(): Promise<void> {
    return this.inner.close()
  }

  /** The fault planned for this call of `method`, taken from the plan, if any. */
  #fault(method: StoreMethod): ScheduledFault | null {
    const nth = this.#counts.get(method) ?? 0
    this.#counts.set(method, nth + 1)
    const call = this.#calls
    this.#calls += 1
    const index = this.faults.findIndex((fault) =>
      fault.method === undefined ? fault.nth === call : fault.method === method && fault.nth === nth,
    )
    if (index < 0) return null
    const [fault] = this.faults.splice(index, 1) as [ScheduledFault]
    const taken = { method, nth: fault.method === undefined ? call : nth, kind: fault.kind }
    this.injected.push(taken)
    return taken
  }

  /** Runs `work` now (or not, as the fault says) and answers when the scheduler lets the answer through. */
  protected pass<T>(method: StoreMethod, work: () => Promise<T>): Promise<T> {
    const scheduler = this.scheduler
    if (!scheduler) return work()
    const fault = this.#fault(method)
    if (fault?.kind === 'throw') throw new Error(`store ${method} threw`)
    if (fault?.kind === 'hang') return new Promise<T>(() => {})
    const done = fault?.kind === 'reject' ? null : work()
    // The work's own failure is the answer; an unhandled one before the answer is let through is not a fault.
    done?.catch(() => undefined)
    if (fault?.kind === 'silent') return new Promise<T>(() => {})
    const label = `${method}${fault ? ` (${fault.kind})` : ''}`
    // Each task the scheduler holds is ready to run: letting one through never waits. `changed` waits by itself, so
    // its answer joins the scheduler's tasks once its wait is over.
    const release = (): Promise<void> =>
      this.scheduler ? this.scheduler.schedule(Promise.resolve(), label) : Promise.resolve()
    const turn = method === 'changed' && done ? done.then(release, release) : release()
    const answer = turn.then(() => {
      if (!done) throw new Error(`store ${method} failed`)
      if (fault?.kind === 'lost')
        return done.then(() => Promise.reject(new Error(`store ${method}: no answer (it ran)`)))
      return done
    })
    if (fault?.kind !== 'thenable') return answer
    // A thenable that is not a promise: what a store of the application's own may hand back.
    const thenable = {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a promise is the fault
      then: (resolve: (value: T) => unknown, reject: (reason: unknown) => unknown) =>
        answer.then(resolve, reject),
    }
    return thenable as unknown as Promise<T>
  }
}
