import { type ErrorCode, SdkError, type SdkErrorCode } from './sdk-error.js'

/** Options of a {@link RefreshTokenError}. */
export interface RefreshTokenErrorOptions {
  /** OAuth error code, for example `invalid_grant`, or one of {@link SdkErrorCode}. */
  code: ErrorCode
  /** OAuth `error_description`, empty when the server sent none. */
  description?: string
  /** HTTP status of the token endpoint's answer. */
  status: number
  /** The underlying error, if any. */
  cause?: unknown
  /** A sentence added to the message: what the refusal most likely means for this instance and what to do. */
  hint?: string
}

/**
 * The OAuth server refused to refresh the token pair (contract 8). After an `invalid_grant` the refresh token is dead
 * and the application must be re-authorised.
 */
export class RefreshTokenError extends SdkError {
  constructor(options: RefreshTokenErrorOptions) {
    const description = options.description ?? ''
    const hint = options.hint ? `. ${options.hint}` : ''
    super({
      code: options.code,
      status: options.status,
      description,
      cause: options.cause,
      message: `Refresh token error: ${options.code}${description ? ` (${description})` : ''}, HTTP ${options.status}${hint}`,
    })
    this.name = 'RefreshTokenError'
  }
}
