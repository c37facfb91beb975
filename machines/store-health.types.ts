// The store-health machine's types and constants, without XState (see access-token.types.ts).

/** What the store-health machine knows. */
export interface StoreHealthContext {
  /** How long the store waits after a failure, or a probe that failed, before its next probe, ms. */
  cooldownMs: number
  /** The failure that took the store down (the store's message: the operation and the reason); `null` while up. */
  reason: string | null
  /** When the store went down, `performance.now()` ms; `null` while up. */
  since: number | null
}

/** What the store-health machine starts from. */
export interface StoreHealthInput {
  /** See {@link StoreHealthContext.cooldownMs}. */
  cooldownMs: number
}

/** Events of the store-health machine. */
export type StoreHealthEvent =
  | {
      /** An operation got no answer within the store's command timeout, or the connection failed it. */
      type: 'backend.unreachable'
      /** The store's message for it: the operation and the reason, never an argument. */
      reason: string
      /** When, `performance.now()` ms. */
      at: number
    }
  | {
      /** The backend answered an operation sent before it went down (a frozen server that runs again). */
      type: 'backend.answered'
    }

/** The id of the actor invoked in `suspect` and `probing`; its events are `xstate.done.actor.probe` / `xstate.error.actor.probe`. */
export const PROBE_ACTOR_ID = 'probe'

/** The states of the store-health machine. */
export type StoreHealthState = 'up' | 'suspect' | 'down' | 'probing'
