// The access-token machine's types and constants, without XState: the main entry's declarations import these,
// so that a consumer that never imports XState does not load its declarations.

/** Timeouts, retries and margins of the access-token machine, all in ms except `refreshRetries`. */
export interface AccessTokenSettings {
  /** A call or `getAuthData()` this long before `expires` starts a refresh in the background. */
  eagerRefreshMs: number
  /** Longest wait for one refresh attempt (the OAuth request or the custom refresh). */
  refreshTimeoutMs: number
  /** Longest wait for the refresh callback. */
  callbackTimeoutMs: number
  /** Attempts after the first one when an attempt fails transiently (5xx, connection, timeout). */
  refreshRetries: number
  /** Backoff before the first retry; doubled for each further one, then jittered. */
  retryBaseDelayMs: number
  /** Cap of the backoff. */
  retryMaxDelayMs: number
}

/** Defaults of {@link AccessTokenSettings}. */
export const DEFAULT_ACCESS_TOKEN_SETTINGS: Readonly<AccessTokenSettings> = Object.freeze({
  eagerRefreshMs: 60_000,
  refreshTimeoutMs: 10_000,
  callbackTimeoutMs: 10_000,
  refreshRetries: 3,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 4_000,
})

/**
 * How a refresh attempt failed, as the refresh actor rejects: `dead` (the OAuth server refused the refresh token:
 * no further request can help), `transient` (5xx, connection dropped or refused, timeout: another attempt may
 * succeed) or `failed` (anything else, for example a custom refresh that threw).
 */
export interface RefreshFailure {
  /** What kind of failure it is; decides between `dead`, a retry and going back. */
  kind: 'dead' | 'transient' | 'failed'
  /** The error callers get (already free of secrets); `null` when the machine itself timed the attempt out. */
  error: unknown
  /** Set when the attempt did not settle within `refreshTimeoutMs`. */
  timedOut?: true
}

/** What the refresh callback left behind when it did not succeed. */
export interface CallbackFailure {
  /** What it threw (already free of secrets); `null` when it timed out. */
  error: unknown
  /** Set when it did not settle within `callbackTimeoutMs`. */
  timedOut?: true
}

/**
 * What the access-token machine knows. It holds no secret: tokens live in the client; the machine owns when the
 * current token expires, which generation it is, the refresh in flight and how the last one ended.
 */
export interface AccessTokenContext {
  /** Expiry of the current access token, Unix seconds. */
  expires: number
  /** Number of the current token pair: 0 for the pair given to the constructor, +1 per refresh or replacement. */
  generation: number
  /** The state a refresh started from; a failed refresh returns there. */
  refreshOrigin: 'valid' | 'expired'
  /** The refresh in flight runs in the background (eager margin): calls go on with the token still valid. */
  background: boolean
  /**
   * A background refresh of the current pair failed: no other starts before expiry (then the ordinary refresh does),
   * so that a failing refresh is not tried again on every call inside the margin.
   */
  backgroundFailed: boolean
  /** Successful refreshes so far (counted once the callback has settled). */
  refreshCount: number
  /** Failed refreshes so far (the dead pair included). */
  failureCount: number
  /** Attempts made by the refresh in flight. */
  attempt: number
  /** Backoff before the next attempt, ms (jittered). */
  retryDelayMs: number
  /** How the last failed refresh failed, or null. */
  lastFailure: RefreshFailure | null
  /** How the callback of the last successful refresh failed, or null when it succeeded. */
  callbackFailure: CallbackFailure | null
  /** The client is closing: no new attempt starts; the attempt in flight finishes. */
  closing: boolean
  /** Timeouts, retries and margins. */
  settings: AccessTokenSettings
}

/** Input of the access-token machine. */
export interface AccessTokenInput {
  /** Expiry of the initial access token, Unix seconds. */
  expires: number
  /** Overrides of {@link DEFAULT_ACCESS_TOKEN_SETTINGS}. */
  settings?: Partial<AccessTokenSettings>
}

/** What the refresh actor resolves to: the new pair's expiry. Tokens stay in the client. */
export interface AccessTokenRefreshOutput {
  /** Expiry of the new access token, Unix seconds. */
  expires: number
  /** The pair was taken from the shared store (another instance refreshed it): not a refresh, nothing to persist. */
  fromStore?: boolean
}

/** Events of the access-token machine. */
export type AccessTokenEvent =
  /** Time passed; `now` is the client clock in ms. Moves `valid` to `expired` when `expires <= now`. */
  | {
      /** The event's name. */
      type: 'clock.tick'
      /** The client clock, ms. */
      now: number
    }
  /** `getAuthData()` was called, or a call is about to be sent, at `now` ms. */
  | {
      /** The event's name. */
      type: 'authData.requested'
      /** The client clock, ms. */
      now: number
    }
  /** The portal answered `expired_token` to a token of `generation`. Only the current generation starts a refresh. */
  | {
      /** The event's name. */
      type: 'token.rejected'
      /** Generation of the rejected token. */
      generation: number
    }
  /** `refreshAuth()` was called. */
  | {
      /** The event's name. */
      type: 'refresh.requested'
    }
  /** `setAuthOptions()` brought a new pair expiring at `expires` (Unix seconds). */
  | {
      /** The event's name. */
      type: 'pair.replaced'
      /** Expiry of the new pair, Unix seconds. */
      expires: number
    }
  /** `destroy()` was called: the attempt in flight finishes, nothing new starts. */
  | {
      /** The event's name. */
      type: 'client.closing'
    }

/** The id of the refresh actor invoked in `refreshing.requesting`. */
export const REFRESH_ACTOR_ID = 'refresh'

/** The id of the callback actor invoked in `refreshing.persisting`. */
export const PERSIST_ACTOR_ID = 'persist'

/** The top-level states of the access-token machine, as `tokenState` reports them. */
export type AccessTokenState = 'valid' | 'expired' | 'refreshing' | 'dead'
