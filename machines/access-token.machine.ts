import { assign, fromPromise, setup } from 'xstate'
import {
  type AccessTokenContext,
  type AccessTokenEvent,
  type AccessTokenInput,
  type AccessTokenRefreshOutput,
  type AccessTokenSettings,
  DEFAULT_ACCESS_TOKEN_SETTINGS,
  PERSIST_ACTOR_ID,
  REFRESH_ACTOR_ID,
  type RefreshFailure,
} from './access-token.types.js'

function failureOf(error: unknown): RefreshFailure {
  if (error !== null && typeof error === 'object' && 'kind' in error) return error as RefreshFailure
  return { kind: 'failed', error }
}

/** Full jitter over a capped exponential backoff. */
function backoff(settings: AccessTokenSettings, attempt: number): number {
  const ceiling = Math.min(
    settings.retryMaxDelayMs,
    settings.retryBaseDelayMs * 2 ** Math.max(0, attempt - 1),
  )
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2)
}

/** The state the access-token machine starts in: it has no entry actions and no delays. */
export const ACCESS_TOKEN_INITIAL_STATE = 'valid'

/** The access-token machine's context when it starts from `input`. */
export function initialAccessTokenContext(input: AccessTokenInput): AccessTokenContext {
  return {
    expires: input.expires,
    generation: 0,
    refreshOrigin: 'valid',
    background: false,
    backgroundFailed: false,
    refreshCount: 0,
    failureCount: 0,
    attempt: 0,
    retryDelayMs: 0,
    lastFailure: null,
    callbackFailure: null,
    closing: false,
    // The defaults are one frozen object, shared by every instance that keeps them (a fleet holds thousands).
    settings:
      input.settings === undefined || input.settings === DEFAULT_ACCESS_TOKEN_SETTINGS
        ? DEFAULT_ACCESS_TOKEN_SETTINGS
        : { ...DEFAULT_ACCESS_TOKEN_SETTINGS, ...input.settings },
  }
}

/**
 * The access-token machine: `valid`, `expired`, `refreshing` (requesting, waiting to retry, persisting) and `dead`.
 * It does no I/O: the client provides the `refreshTokens` and `persistPair` actors with `provide`. Being in
 * `refreshing` is what guarantees one refresh in flight per instance; every wait in it is bounded by a delay here.
 */
export const accessTokenMachine = setup({
  types: {
    context: {} as AccessTokenContext,
    events: {} as AccessTokenEvent,
    input: {} as AccessTokenInput,
  },
  actors: {
    /** Obtains a new pair and stores it in the client; provided by the client. Rejects with a {@link RefreshFailure}. */
    refreshTokens: fromPromise<AccessTokenRefreshOutput>(async () => {
      throw new Error('refreshTokens is provided by the client')
    }),
    /** Runs the refresh callback with the new pair; provided by the client. */
    persistPair: fromPromise<void>(async () => undefined),
  },
  delays: {
    refreshTimeout: ({ context }) => context.settings.refreshTimeoutMs,
    callbackTimeout: ({ context }) => context.settings.callbackTimeoutMs,
    retryDelay: ({ context }) => context.retryDelayMs,
  },
  guards: {
    /** `expires <= now` as `getAuthData()` compares it. */
    isPastExpiry: ({ context, event }) => 'now' in event && context.expires * 1000 <= event.now,
    /** `now` is within the eager margin before `expires`. */
    isInEagerMargin: ({ context, event }) =>
      'now' in event &&
      !context.backgroundFailed &&
      context.expires * 1000 - context.settings.eagerRefreshMs <= event.now,
    /** The rejected token is the current one (an older token's rejection starts nothing). */
    isCurrentGeneration: ({ context, event }) =>
      event.type === 'token.rejected' && event.generation === context.generation,
    /** The refresh took the pair another instance saved in the shared store. */
    isFromStore: ({ event }) =>
      'output' in event && (event.output as AccessTokenRefreshOutput | undefined)?.fromStore === true,
    /** The OAuth server refused the refresh token. */
    isDeadPair: ({ event }) => failureOf((event as { error?: unknown }).error).kind === 'dead',
    /** The attempt failed transiently, attempts are left and the client is not closing. */
    mayRetry: ({ context, event }) =>
      failureOf((event as { error?: unknown }).error).kind === 'transient' &&
      context.attempt <= context.settings.refreshRetries &&
      !context.closing,
    /** A timed-out attempt may be retried: attempts are left and the client is not closing. */
    mayRetryAfterTimeout: ({ context }) =>
      context.attempt <= context.settings.refreshRetries && !context.closing,
    /** The failed refresh started from `valid`. */
    cameFromValid: ({ context }) => context.refreshOrigin === 'valid',
  },
  actions: {
    rememberValidOrigin: assign({ refreshOrigin: 'valid' as const, attempt: 0, background: false }),
    rememberExpiredOrigin: assign({ refreshOrigin: 'expired' as const, attempt: 0, background: false }),
    rememberBackgroundRefresh: assign({ refreshOrigin: 'valid' as const, attempt: 0, background: true }),
    /** Counts a refresh whose last attempt outlived the refresh timeout. */
    recordTimeout: assign(({ context }) => ({
      lastFailure: { kind: 'transient' as const, error: null, timedOut: true as const },
      failureCount: context.failureCount + 1,
      backgroundFailed: context.backgroundFailed || context.background,
    })),
    /** Takes the pair `setAuthOptions()` brought: a new generation, no failure behind it. */
    takeReplacedPair: assign(({ context, event }) =>
      event.type === 'pair.replaced'
        ? {
            expires: event.expires,
            generation: context.generation + 1,
            lastFailure: null,
            backgroundFailed: false,
          }
        : {},
    ),
    /** Counts a failed refresh; its failure is the event's error, or the last attempt's when the event has none. */
    recordFailure: assign(({ context, event }) => ({
      lastFailure: 'error' in event ? failureOf(event.error) : context.lastFailure,
      failureCount: context.failureCount + 1,
      backgroundFailed: context.backgroundFailed || context.background,
    })),
    /** Told by the client when a refresh attempt timed out (for its log). */
    reportRefreshTimeout: () => {},
    /** Told by the client when the refresh callback timed out (for its log). */
    reportCallbackTimeout: () => {},
  },
}).createMachine({
  id: 'accessToken',
  description:
    'The access token of one PortalOAuth instance. Tokens stay in the client; the machine knows when the current token expires, which generation it is, the one refresh in flight and how the last one ended. Every state but `dead` is left by itself within bounded time.',
  context: ({ input }) => initialAccessTokenContext(input),
  initial: ACCESS_TOKEN_INITIAL_STATE,
  on: {
    'client.closing': {
      actions: assign({ closing: true }),
      description:
        'destroy() was called: the attempt in flight finishes and is persisted; no new attempt starts.',
    },
  },
  states: {
    valid: {
      description: 'The access token is believed usable; REST calls use it.',
      meta: {
        'getAuthData()':
          'Returns the current AuthData. Within the eager margin it also starts a refresh in the background; past `expires` it moves to `expired`, starts the refresh and returns false.',
        'REST calls':
          'Sent with the current access token; within the eager margin the first one starts a background refresh; an `expired_token` answer starts the refresh and the call is sent once more.',
        'refreshAuth()': 'Starts a refresh and resolves with the new AuthData.',
      },
      on: {
        'clock.tick': {
          guard: 'isPastExpiry',
          target: 'expired',
          description: 'The client clock reached `expires` (checked on getAuthData() and before each call).',
        },
        'authData.requested': {
          guard: 'isInEagerMargin',
          target: 'refreshing',
          actions: 'rememberBackgroundRefresh',
          description:
            'A call or getAuthData() inside the eager margin before `expires`: the refresh starts in the background while the current token is still used.',
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
        'pair.replaced': {
          target: 'valid',
          reenter: true,
          actions: 'takeReplacedPair',
          description: 'setAuthOptions() brought a new pair; it is used from now on.',
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
        'pair.replaced': {
          target: 'valid',
          actions: 'takeReplacedPair',
          description: 'setAuthOptions() brought a new pair; it is used from now on.',
        },
      },
    },
    refreshing: {
      description:
        'One refresh in flight; callers whose token is no longer usable wait for it (each within its own timeout).',
      meta: {
        'getAuthData()': 'Returns the AuthData held (false once it has expired); starts nothing.',
        'REST calls':
          'Wait for the refresh (bounded by the call timeout), then go out with the new token or fail with the refresh error; during a background refresh they go on with the token while it has not expired.',
        'refreshAuth()': 'Waits for the refresh in flight; no second request is sent.',
      },
      on: {
        'pair.replaced': {
          target: '#accessToken.valid',
          actions: 'takeReplacedPair',
          description:
            'setAuthOptions() brought a new pair: it is used from now on; the refresh of the replaced pair is abandoned.',
        },
      },
      initial: 'requesting',
      states: {
        requesting: {
          description:
            'One attempt at the OAuth server (or the custom refresh), bounded by the refresh timeout.',
          entry: assign({ attempt: ({ context }) => context.attempt + 1 }),
          invoke: {
            id: REFRESH_ACTOR_ID,
            src: 'refreshTokens',
            onDone: [
              {
                guard: 'isFromStore',
                target: '#accessToken.valid',
                actions: assign(({ context, event }) => ({
                  expires: event.output.expires,
                  generation: context.generation + 1,
                  refreshCount: context.refreshCount + 1,
                  lastFailure: null,
                  callbackFailure: null,
                  backgroundFailed: false,
                })),
                description:
                  'Another instance on the same store refreshed the pair: it is used from now on; no callback runs for it.',
              },
              {
                target: 'persisting',
                actions: assign(({ context, event }) => ({
                  expires: event.output.expires,
                  generation: context.generation + 1,
                  lastFailure: null,
                  backgroundFailed: false,
                })),
                description:
                  'The OAuth server handed over a new pair: it is committed at once (in use from now on), then persisted.',
              },
            ],
            onError: [
              {
                guard: 'isDeadPair',
                target: '#accessToken.dead',
                actions: 'recordFailure',
                description:
                  'The OAuth server answered with an OAuth error: the refresh token is dead; no further request is sent.',
              },
              {
                guard: 'mayRetry',
                target: 'waitingToRetry',
                actions: assign(({ context, event }) => ({
                  lastFailure: failureOf(event.error),
                  retryDelayMs: backoff(context.settings, context.attempt),
                })),
                description:
                  'A transient failure (5xx, connection, timeout): one more attempt after a backoff.',
              },
              {
                guard: 'cameFromValid',
                target: '#accessToken.valid',
                actions: 'recordFailure',
                description: 'The refresh failed: waiting callers get its error; the old token stays in use.',
              },
              {
                target: '#accessToken.expired',
                actions: 'recordFailure',
                description:
                  'The refresh failed: waiting callers get its error; the next call or getAuthData() tries again.',
              },
            ],
          },
          after: {
            refreshTimeout: [
              {
                guard: 'mayRetryAfterTimeout',
                target: 'waitingToRetry',
                actions: [
                  'reportRefreshTimeout',
                  assign(({ context }) => ({
                    lastFailure: { kind: 'transient' as const, error: null, timedOut: true as const },
                    retryDelayMs: backoff(context.settings, context.attempt),
                  })),
                ],
                description:
                  'The attempt took longer than the refresh timeout: it is abandoned and tried again.',
              },
              {
                guard: 'cameFromValid',
                target: '#accessToken.valid',
                actions: ['reportRefreshTimeout', 'recordTimeout'],
                description:
                  'The last attempt took longer than the refresh timeout: waiting callers get a timeout.',
              },
              {
                target: '#accessToken.expired',
                actions: ['reportRefreshTimeout', 'recordTimeout'],
                description:
                  'The last attempt took longer than the refresh timeout: waiting callers get a timeout.',
              },
            ],
          },
        },
        waitingToRetry: {
          description: 'Backoff before the next attempt, shared by every waiting caller (capped, jittered).',
          after: {
            retryDelay: {
              target: 'requesting',
              description: 'The backoff is over: the next attempt starts.',
            },
          },
          on: {
            'client.closing': [
              {
                guard: 'cameFromValid',
                target: '#accessToken.valid',
                actions: [assign({ closing: true }), 'recordFailure'],
                description:
                  'destroy() during the backoff: no further attempt; the pair held stays as it was.',
              },
              {
                target: '#accessToken.expired',
                actions: [assign({ closing: true }), 'recordFailure'],
                description:
                  'destroy() during the backoff: no further attempt; the pair held stays as it was.',
              },
            ],
          },
        },
        persisting: {
          description:
            'The new pair is in use; the refresh callback persists it, bounded by the callback timeout.',
          invoke: {
            id: PERSIST_ACTOR_ID,
            src: 'persistPair',
            onDone: {
              target: '#accessToken.valid',
              actions: assign(({ context }) => ({
                refreshCount: context.refreshCount + 1,
                callbackFailure: null,
              })),
              description: 'The callback persisted the new pair; waiting callers go on with it.',
            },
            onError: {
              target: '#accessToken.valid',
              actions: assign(({ context, event }) => ({
                refreshCount: context.refreshCount + 1,
                callbackFailure: { error: event.error },
              })),
              description:
                'The callback threw: the new pair stays in use; refreshAuth() rejects with what it threw.',
            },
          },
          after: {
            callbackTimeout: {
              target: '#accessToken.valid',
              actions: [
                'reportCallbackTimeout',
                assign(({ context }) => ({
                  refreshCount: context.refreshCount + 1,
                  callbackFailure: { error: null, timedOut: true as const },
                })),
              ],
              description:
                'The callback did not settle within the callback timeout: the new pair stays in use; refreshAuth() rejects with a timeout.',
            },
          },
        },
      },
    },
    dead: {
      description:
        'The OAuth server refused the refresh token: no refresh request is sent; calls and refreshAuth() fail at once with its error until setAuthOptions() brings a new pair.',
      meta: {
        'getAuthData()': 'Returns false; starts nothing.',
        'REST calls': 'Fail at once with the RefreshTokenError that killed the pair; nothing is sent.',
        'refreshAuth()': 'Fails at once with the same RefreshTokenError; nothing is sent.',
      },
      on: {
        'pair.replaced': {
          target: 'valid',
          actions: 'takeReplacedPair',
          description: 'setAuthOptions() brought a new pair: the client works again.',
        },
      },
    },
  },
})

/**
 * The access-token machine with a client's refresh and persist actors and its timeout actions provided: what
 * `auth.tokenActor` runs.
 */
export type ProvidedTokenMachine = ReturnType<(typeof accessTokenMachine)['provide']>
