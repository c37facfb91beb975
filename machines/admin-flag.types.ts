// The admin-flag machine's types and constants, without XState (see access-token.types.ts).

/** What the admin-flag machine knows. */
export interface AdminFlagContext {
  /** Whether the user is an admin; `null` until `initIsAdmin()` completed once. */
  isAdmin: boolean | null
  /** The `requestId` of the `initIsAdmin()` call that started the load in flight (or the last one). */
  requestId: string | undefined
  /** What the last load failed with (the `initIsAdmin()` callers' error); `null` after a load that succeeded. */
  loadFailure: unknown
}

/** Events of the admin-flag machine (contract 2.3). */
export type AdminFlagEvent =
  /** `initIsAdmin()` was called, with its `requestId` if any. */
  {
    /** The event's name. */
    type: 'init.requested'
    /** The `requestId` of the `profile` call. */
    requestId?: string
  }

/** The id of the actor invoked in `loading`; its events are `xstate.done.actor.loadIsAdmin` / `xstate.error.actor.loadIsAdmin`. */
export const LOAD_IS_ADMIN_ACTOR_ID = 'loadIsAdmin'

/** The states of the admin-flag machine. */
export type AdminFlagState = 'notInitialised' | 'loading' | 'initialised'
