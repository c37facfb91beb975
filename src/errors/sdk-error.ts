/** Options of an {@link SdkError}. */
export interface SdkErrorOptions {
  /** Machine-readable code, for example `REQUEST_TIMEOUT` or `invalid_grant`. */
  code: string
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
  /** Machine-readable code. */
  readonly code: string
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

/** Codes of the errors the client raises itself (as opposed to codes the portal sends). */
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
  /** The refresh callback did not settle within `callbackTimeout`; the new pair is in use but may not be persisted. */
  CallbackTimeout: 'JSSDK_CALLBACK_TIMEOUT',
  /** An install event's `application_token` is missing or does not match the one stored for the portal. */
  ApplicationTokenMismatch: 'JSSDK_APPLICATION_TOKEN_MISMATCH',
  /** Another instance on the shared store held the portal's refresh lock for a whole refresh attempt. */
  RefreshLockBusy: 'JSSDK_REFRESH_LOCK_BUSY',
  /** The store holds no pair for the portal (never installed, or uninstalled). */
  PortalNotInstalled: 'JSSDK_PORTAL_NOT_INSTALLED',
} as const
