import type { ApiVersion } from '../types/api-version.js'
import { type ErrorCode, SdkError } from './sdk-error.js'

/** Which call an {@link AjaxError} belongs to. Never holds tokens. */
export interface AjaxErrorRequestInfo {
  /** REST API version; absent for the OAuth token request. */
  apiVersion?: ApiVersion
  /** REST method name, or `oauth/token` for the refresh request. */
  method: string
  /** The caller's request label, if any. */
  requestId?: string
}

/** Options of an {@link AjaxError}. */
export interface AjaxErrorOptions {
  /** `NETWORK_ERROR`, `REQUEST_TIMEOUT`, `REQUEST_ABORTED`, `INVALID_RESPONSE` or the portal's code. */
  code: ErrorCode
  /** Human-readable message. */
  message: string
  /** HTTP status, 0 when there was no answer. */
  status?: number
  /** Longer description. */
  description?: string
  /** The call that failed. */
  request: AjaxErrorRequestInfo
  /** How many times the request was sent. */
  attempts?: number
  /** The underlying error. */
  cause?: unknown
}

/** A REST call failed below the REST level (timeout, connection, unreadable answer) after its retries. */
export class AjaxError extends SdkError {
  /** The call that failed. */
  readonly request: AjaxErrorRequestInfo
  /** How many times the request was sent. */
  readonly attempts: number

  constructor(options: AjaxErrorOptions) {
    super(options)
    this.name = 'AjaxError'
    this.request = options.request
    this.attempts = options.attempts ?? 1
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), request: this.request, attempts: this.attempts }
  }
}
