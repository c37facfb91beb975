import { assign, fromPromise, setup } from 'xstate'

/**
 * What the access-token machine knows. It holds no secret: tokens live in the client, the machine only knows when
 * the current token expires and which generation (how many refreshes ago) it is.
 */
export interface AccessTokenContext {
  /** Expiry of the current access token, Unix seconds. */
  expires: number
  /** Number of the current token pair: 0 for the pair given to the constructor, +1 per successful refresh. */
  generation: number
  /** The state a refresh started from; a failed refresh returns there. */
  refreshOrigin: 'valid' | 'expired'
  /** Successful refreshes so far. */
  refreshCount: number
  /** Failed refreshes so far. */
  failureCount: number
}

/** Input of the access-token machine: the initial pair's expiry. */
export interface AccessTokenInput {
  /** Expiry of the initial access token, Unix seconds. */
  expires: number
}

/** What the refresh actor resolves to: the new pair's expiry and generation. Tokens stay in the client. */
export interface AccessTokenRefreshOutput {
  /** Expiry of the new access token, Unix seconds. */
  expires: number
  /** Generation of the new pair. */
  generation: number
}

/** Events of the access-token machine (spec 3.1). */
export type AccessTokenEvent =
  /** Time passed; `now` is the client clock in ms. Moves `valid` to `expired` when `expires <= now`. */
  | { type: 'clock.tick'; now: number }
  /** `getAuthData()` was called (or a call is about to be sent) at `now` ms. Starts a refresh when expired. */
  | { type: 'authData.requested'; now: number }
  /** The portal answered `expired_token` to a token of `generation`. Only the current generation starts a refresh. */
  | { type: 'token.rejected'; generation: number }
  /** `refreshAuth()` was called. */
  | { type: 'refresh.requested' }

/** The id of the refresh actor invoked in `refreshing`; its done/error events are `xstate.done.actor.refresh` / `xstate.error.actor.refresh`. */
export const REFRESH_ACTOR_ID = 'refresh'

/**
 * The access-token machine of spec 3.1: `valid`, `expired`, `refreshing`. It does no I/O: the client provides the
 * `refreshTokens` actor with `accessTokenMachine.provide({ actors: { refreshTokens } })`. Being in `refreshing` is
 * what guarantees one refresh in flight per instance.
 */
export const accessTokenMachine = setup({
  types: {
    context: {} as AccessTokenContext,
    events: {} as AccessTokenEvent,
    input: {} as AccessTokenInput,
  },
  actors: {
    /** Obtains a new pair and stores it in the client; provided by the client. */
    refreshTokens: fromPromise<AccessTokenRefreshOutput>(async () => {
      throw new Error('refreshTokens is provided by the client')
    }),
  },
  guards: {
    /** `expires <= now` as `getAuthData()` compares it. */
    isPastExpiry: ({ context, event }) => 'now' in event && context.expires * 1000 <= event.now,
    /** The rejected token is the current one (an older token's rejection starts nothing). */
    isCurrentGeneration: ({ context, event }) =>
      event.type === 'token.rejected' && event.generation === context.generation,
    /** The failed refresh started from `valid`. */
    cameFromValid: ({ context }) => context.refreshOrigin === 'valid',
  },
  actions: {
    rememberValidOrigin: assign({ refreshOrigin: 'valid' as const }),
    rememberExpiredOrigin: assign({ refreshOrigin: 'expired' as const }),
  },
}).createMachine({
  id: 'accessToken',
  description:
    'The access token of one PortalOAuth instance (spec 3.1). Tokens stay in the client; the machine knows when the current token expires and which generation it is, and its `refreshing` state is the one refresh in flight.',
  context: ({ input }) => ({
    expires: input.expires,
    generation: 0,
    refreshOrigin: 'valid',
    refreshCount: 0,
    failureCount: 0,
  }),
  initial: 'valid',
  states: {
    valid: {
      description: 'The access token is believed usable; REST calls use it.',
      meta: {
        'getAuthData()':
          'Returns the current AuthData. Past `expires` it moves to `expired`, starts the refresh and returns false.',
        'REST calls':
          'Sent with the current access token; an `expired_token` answer starts the refresh and the call is sent once more.',
        'refreshAuth()': 'Starts a refresh and resolves with the new AuthData.',
      },
      on: {
        'clock.tick': {
          guard: 'isPastExpiry',
          target: 'expired',
          description: 'The client clock reached `expires` (checked on getAuthData() and before each call).',
        },
        'token.rejected': {
          guard: 'isCurrentGeneration',
          target: 'refreshing',
          actions: 'rememberValidOrigin',
          description:
            'The portal answered `expired_token` to the current token: the automatic refresh starts.',
        },
        'refresh.requested': {
          target: 'refreshing',
          actions: 'rememberValidOrigin',
          description: 'refreshAuth() was called.',
        },
      },
    },
    expired: {
      description: '`expires <= now`: getAuthData() returns false; the next call or getAuthData() refreshes.',
      meta: {
        'getAuthData()': 'Returns false and starts the automatic refresh.',
        'REST calls': 'Start the automatic refresh before sending, then go out with the new token.',
        'refreshAuth()': 'Starts a refresh and resolves with the new AuthData.',
      },
      on: {
        'authData.requested': {
          guard: 'isPastExpiry',
          target: 'refreshing',
          actions: 'rememberExpiredOrigin',
          description:
            'getAuthData() was called, or a call is about to be sent: the automatic refresh starts.',
        },
        'token.rejected': {
          guard: 'isCurrentGeneration',
          target: 'refreshing',
          actions: 'rememberExpiredOrigin',
          description:
            'The portal answered `expired_token` to the current token: the automatic refresh starts.',
        },
        'refresh.requested': {
          target: 'refreshing',
          actions: 'rememberExpiredOrigin',
          description: 'refreshAuth() was called.',
        },
      },
    },
    refreshing: {
      description: 'One refresh in flight; every caller waits for it.',
      meta: {
        'getAuthData()': 'Returns the AuthData held (false once it has expired); starts nothing.',
        'REST calls':
          'Wait for the refresh in flight, then go out with the new token, or fail with its error.',
        'refreshAuth()': 'Waits for the refresh in flight; no second request is sent.',
      },
      invoke: {
        id: REFRESH_ACTOR_ID,
        src: 'refreshTokens',
        onDone: {
          target: 'valid',
          actions: assign(({ context, event }) => ({
            expires: event.output.expires,
            generation: event.output.generation,
            refreshCount: context.refreshCount + 1,
          })),
          description:
            'The new pair is stored and the refresh callback has run; waiting callers go on with the new token.',
        },
        onError: [
          {
            guard: 'cameFromValid',
            target: 'valid',
            actions: assign({ failureCount: ({ context }) => context.failureCount + 1 }),
            description: 'The refresh failed: waiting callers get its error; the old token stays in use.',
          },
          {
            target: 'expired',
            actions: assign({ failureCount: ({ context }) => context.failureCount + 1 }),
            description:
              'The refresh failed: waiting callers get its error; the next call or getAuthData() tries again.',
          },
        ],
      },
    },
  },
})

/** The states of the access-token machine. */
export type AccessTokenState = 'valid' | 'expired' | 'refreshing'
