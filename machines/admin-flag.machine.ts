import { assign, fromPromise, setup } from 'xstate'
import { type AdminFlagContext, type AdminFlagEvent, LOAD_IS_ADMIN_ACTOR_ID } from './admin-flag.types.js'

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
    loadIsAdmin: fromPromise<boolean, string | undefined>(async () => {
      throw new Error('loadIsAdmin is provided by the client')
    }),
  },
  guards: {
    /** A value is already known (from an earlier `initIsAdmin()`). */
    hasValue: ({ context }) => context.isAdmin !== null,
  },
  actions: {
    /** Keeps the `requestId` the load is sent with. */
    rememberRequestId: assign({ requestId: ({ event }) => event.requestId }),
    /** Keeps what the load failed with, for the callers waiting for it. */
    rememberFailure: assign({ loadFailure: ({ event }) => ('error' in event ? event.error : null) }),
  },
}).createMachine({
  id: 'adminFlag',
  description:
    'Whether the user of the token pair is an admin (contract 2.3): loaded by initIsAdmin() with one `profile` call, then cached for `auth.isAdmin`.',
  context: { isAdmin: null, requestId: undefined, loadFailure: null },
  initial: 'notInitialised',
  states: {
    notInitialised: {
      description: 'initIsAdmin() has not completed: reading auth.isAdmin throws.',
      meta: {
        'auth.isAdmin': 'Throws SdkError `JSSDK_OAUTH_IS_ADMIN_NOT_INIT`.',
        'initIsAdmin()': 'Calls `profile` once.',
      },
      on: {
        'init.requested': {
          target: 'loading',
          actions: 'rememberRequestId',
          description: 'initIsAdmin() was called.',
        },
      },
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
        input: ({ context }) => context.requestId,
        onDone: {
          target: 'initialised',
          actions: assign({ isAdmin: ({ event }) => event.output, loadFailure: null }),
          description: '`profile` answered: its `ADMIN` flag is cached and initIsAdmin() resolves.',
        },
        onError: [
          {
            guard: 'hasValue',
            target: 'initialised',
            actions: 'rememberFailure',
            description: '`profile` failed: initIsAdmin() rejects, the value loaded before stays readable.',
          },
          {
            target: 'notInitialised',
            actions: 'rememberFailure',
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
      on: {
        'init.requested': {
          target: 'loading',
          actions: 'rememberRequestId',
          description: 'initIsAdmin() was called again.',
        },
      },
    },
  },
})
