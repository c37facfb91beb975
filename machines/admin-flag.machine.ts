import { assign, fromPromise, setup } from 'xstate'

/** What the admin-flag machine knows. */
export interface AdminFlagContext {
  /** Whether the user is an admin; `null` until `initIsAdmin()` completed once. */
  isAdmin: boolean | null
}

/** Events of the admin-flag machine (contract 2.3). */
export type AdminFlagEvent =
  /** `initIsAdmin()` was called. */
  {
    /** The event's name. */
    type: 'init.requested'
  }

/** The id of the actor invoked in `loading`; its events are `xstate.done.actor.loadIsAdmin` / `xstate.error.actor.loadIsAdmin`. */
export const LOAD_IS_ADMIN_ACTOR_ID = 'loadIsAdmin'

/**
 * The admin-flag machine of contract 2.3: `notInitialised` until `initIsAdmin()` completes, then `initialised` with
 * `auth.isAdmin` readable. The client provides the `loadIsAdmin` actor (one `profile` call). A failed load keeps the
 * value known before, if any.
 */
export const adminFlagMachine = setup({
  types: {
    context: {} as AdminFlagContext,
    events: {} as AdminFlagEvent,
  },
  actors: {
    /** Calls `profile` and resolves to its `ADMIN` flag; provided by the client. */
    loadIsAdmin: fromPromise<boolean>(async () => {
      throw new Error('loadIsAdmin is provided by the client')
    }),
  },
  guards: {
    /** A value is already known (from an earlier `initIsAdmin()`). */
    hasValue: ({ context }) => context.isAdmin !== null,
  },
}).createMachine({
  id: 'adminFlag',
  description:
    'Whether the user of the token pair is an admin (contract 2.3): loaded by initIsAdmin() with one `profile` call, then cached for `auth.isAdmin`.',
  context: { isAdmin: null },
  initial: 'notInitialised',
  states: {
    notInitialised: {
      description: 'initIsAdmin() has not completed: reading auth.isAdmin throws.',
      meta: {
        'auth.isAdmin': 'Throws SdkError `JSSDK_OAUTH_IS_ADMIN_NOT_INIT`.',
        'initIsAdmin()': 'Calls `profile` once.',
      },
      on: { 'init.requested': { target: 'loading', description: 'initIsAdmin() was called.' } },
    },
    loading: {
      description: 'One profile call in flight; concurrent initIsAdmin() calls wait for it.',
      meta: {
        'auth.isAdmin': 'The value loaded before, if any; throws while none was ever loaded.',
        'initIsAdmin()': 'Waits for the `profile` call in flight; no second call is sent.',
      },
      invoke: {
        id: LOAD_IS_ADMIN_ACTOR_ID,
        src: 'loadIsAdmin',
        onDone: {
          target: 'initialised',
          actions: assign({ isAdmin: ({ event }) => event.output }),
          description: '`profile` answered: its `ADMIN` flag is cached and initIsAdmin() resolves.',
        },
        onError: [
          {
            guard: 'hasValue',
            target: 'initialised',
            description: '`profile` failed: initIsAdmin() rejects, the value loaded before stays readable.',
          },
          {
            target: 'notInitialised',
            description: '`profile` failed: initIsAdmin() rejects and auth.isAdmin still throws.',
          },
        ],
      },
    },
    initialised: {
      description: 'auth.isAdmin is readable; initIsAdmin() again reloads it.',
      meta: {
        'auth.isAdmin': 'The cached `ADMIN` flag of `profile`.',
        'initIsAdmin()': 'Calls `profile` again and replaces the cached value.',
      },
      on: { 'init.requested': { target: 'loading', description: 'initIsAdmin() was called again.' } },
    },
  },
})

/** The states of the admin-flag machine. */
export type AdminFlagState = 'notInitialised' | 'loading' | 'initialised'
