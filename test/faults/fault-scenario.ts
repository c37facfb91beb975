import fc from 'fast-check'
import { type FaultKind, STORE_METHODS, type StoreFault } from './faulty-store.js'

/** Which of the two instances on the store an action uses. */
export type Who = 0 | 1

/** One thing the application does during a run. */
export type Action =
  | { kind: 'call'; who: Who; api: 'v2' | 'v3' }
  | { kind: 'expire' }
  | { kind: 'refresh'; who: Who }
  | { kind: 'event' }
  | { kind: 'get' }
  | { kind: 'destroy'; who: Who }

/** A run: actions started one after another, `gapMs` apart, while the store goes wrong as `faults` say. */
export interface FaultScenario {
  actions: Array<{ action: Action; gapMs: number }>
  faults: StoreFault[]
}

const who = fc.constantFrom<Who>(0, 1)

/** Calls most often, then expiries and refreshes, now and then an update event, a `get()` or a `destroy()`. */
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('call' as const), who, api: fc.constantFrom('v2', 'v3') }),
    weight: 6,
  },
  { arbitrary: fc.constant({ kind: 'expire' as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('refresh' as const), who }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'event' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'get' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('destroy' as const), who }), weight: 1 },
)

const kind = fc.constantFrom<FaultKind>('reject', 'throw', 'hang', 'late', 'lost', 'stall')

/**
 * A fault at one of the first calls of the store, whatever the method (most are slot requests), or at one of the
 * first calls of one method, so that the rarer ones (the lock, a save, a dead mark) go wrong too. `close` is left
 * out: only the application calls it, at shutdown; the library never does.
 */
const fault: fc.Arbitrary<StoreFault> = fc.oneof(
  fc.record({ nth: fc.nat({ max: 30 }), kind }),
  fc.record({
    method: fc.constantFrom(...STORE_METHODS.filter((method) => method !== 'close')),
    nth: fc.nat({ max: 3 }),
    kind,
  }),
)

/** Up to 14 actions and 1 to 6 faults. */
export const faultScenario: fc.Arbitrary<FaultScenario> = fc.record({
  actions: fc.array(fc.record({ action, gapMs: fc.integer({ min: 0, max: 60 }) }), {
    minLength: 3,
    maxLength: 14,
  }),
  faults: fc.array(fault, { minLength: 1, maxLength: 6 }),
})
