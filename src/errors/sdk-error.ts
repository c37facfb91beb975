/**
 * The code of an error: one of {@link SdkErrorCode} when the client raised it, otherwise the portal's or the OAuth
 * server's own code exactly as it was sent (`ERROR_METHOD_NOT_FOUND`, `expired_token`, `invalid_grant`, ...).
 */
export type ErrorCode = SdkErrorCode | (string & {})

/** Options of an {@link SdkError}. */
export interface SdkErrorOptions {
  /** Machine-readable code, for example `REQUEST_TIMEOUT` or `invalid_grant`. */
  code: ErrorCode
  /** Human-readable message. */
  message: string
  /** HTTP status when the error came from an answer; 0 otherwise. */
  status?: number
  /** Longer description, for example the portal's `error_description`. */
  description?: string
  /** The underlying error, kept for debugging. */
  cause?: unknown
}

/** Base class of every error the client throws on purpose. Carries a `code` and an HTTP `status`. */
export class SdkError extends Error {
  /** Machine-readable code: one of {@link SdkErrorCode}, or the portal's own. */
  readonly code: ErrorCode
  /** HTTP status when the error came from an answer; 0 otherwise. */
  readonly status: number
  /** Longer description, when there is one. */
  readonly description: string

  constructor(options: SdkErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'SdkError'
    this.code = options.code
    this.status = options.status ?? 0
    this.description = options.description ?? ''
  }

  /** A plain view for logs and `JSON.stringify`, without the cause chain. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      message: this.message,
      description: this.description,
    }
  }
}

/**
 * Every code the client raises itself, in one place (codes the portal or the OAuth server send are passed on as they
 * are, see {@link ErrorCode}).
 */
export const SdkErrorCode = {
  /** A constructor argument or call option is invalid. */
  InvalidArgument: 'JSSDK_INVALID_ARGUMENT',
  /** `auth.isAdmin` was read before `initIsAdmin()` completed. */
  IsAdminNotInit: 'JSSDK_OAUTH_IS_ADMIN_NOT_INIT',
  /** The instance was destroyed. */
  Destroyed: 'JSSDK_CLIENT_DESTROYED',
  /** A connection failure survived the retries. */
  NetworkError: 'NETWORK_ERROR',
  /** The request timed out and the timeout survived the retries. */
  RequestTimeout: 'REQUEST_TIMEOUT',
  /** The caller's `AbortSignal` cancelled the call. */
  RequestAborted: 'REQUEST_ABORTED',
  /** The portal answered with something that is not the JSON the protocol promises. */
  InvalidResponse: 'INVALID_RESPONSE',
  /**
   * The OAuth server or the portal answered a request that carries a secret or a token (the client secret, a refresh
   * token, an authorization code, an access token) with a redirect (HTTP 3xx), or the adapter followed one: such a
   * request is never sent on. The message names the location's origin, never its path or query.
   */
  RedirectRefused: 'JSSDK_REDIRECT_REFUSED',
  /**
   * An answer of the OAuth server or the portal passed its size limit (1 MiB for the OAuth server,
   * `httpOptions.maxAnswerBytes`, 128 MiB by default, for REST calls): reading stopped there and the connection was
   * closed. Not retried: the same request would get the same answer.
   */
  AnswerTooLarge: 'JSSDK_ANSWER_TOO_LARGE',
  /** The refresh callback did not settle within `callbackTimeout`; the new pair is in use but may not be persisted. */
  CallbackTimeout: 'JSSDK_CALLBACK_TIMEOUT',
  /** An install event's `application_token` is missing or does not match the one stored for the portal. */
  ApplicationTokenMismatch: 'JSSDK_APPLICATION_TOKEN_MISMATCH',
  /**
   * A pair, a store row, an event or an option names an OAuth server outside `oauthServers`: nothing carrying a
   * secret is sent there.
   */
  UntrustedOAuthServer: 'JSSDK_UNTRUSTED_OAUTH_SERVER',
  /**
   * A trusted OAuth server did not confirm an install or update event's access token for the event's portal (or
   * could not be asked): the event changed nothing.
   */
  EventNotProved: 'JSSDK_EVENT_NOT_PROVED',
  /**
   * Another instance on the shared store held the portal's refresh lock for a whole refresh attempt, or presented the
   * refresh token and its new pair has not reached the store yet (its spending mark), or the lock ended before the
   * token was presented: nothing was sent.
   */
  RefreshLockBusy: 'JSSDK_REFRESH_LOCK_BUSY',
  /**
   * The token store failed, or did not answer in time, where the client cannot go on without it (the refresh lock,
   * the pair read under it, an event's or `PortalFleet.get()`'s read); `cause` is the store's own error (a fleet's:
   * a redacted copy of it).
   */
  TokenStoreFailed: 'JSSDK_TOKEN_STORE_FAILED',
  /** The store holds no pair for the portal (never installed, or uninstalled). */
  PortalNotInstalled: 'JSSDK_PORTAL_NOT_INSTALLED',
  /** More commands than one batch request may carry (50); use `batchByChunk`. */
  BatchTooLarge: 'JSSDK_BATCH_TOO_LARGE',
  /** A batch command was not run: an earlier command failed under `isHaltOnError`, or the whole batch failed. */
  BatchCommandNotRun: 'JSSDK_BATCH_COMMAND_NOT_RUN',
  /** A list method answered something that is not a list of rows (set `customKeyForResult`). */
  ListNotRows: 'JSSDK_LIST_NOT_ROWS',
  /** The last row of a full page has no usable id, so the next page cannot be asked for. */
  ListIdMissing: 'JSSDK_LIST_ID_MISSING',
  /** The next page did not move past the previous one (the method ignored the id filter or cursor). */
  ListNoProgress: 'JSSDK_LIST_NO_PROGRESS',
  /** A state the client should never reach; report it with the error's message. */
  Internal: 'JSSDK_INTERNAL',
} as const

/** One of the codes in {@link SdkErrorCode}. */
export type SdkErrorCode = (typeof SdkErrorCode)[keyof typeof SdkErrorCode]
