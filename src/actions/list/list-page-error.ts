import { type ErrorCode, SdkError, type SdkErrorCode } from '../../errors/sdk-error.js'

/** Options of a {@link ListPageError}. */
export interface ListPageErrorOptions {
  /** The portal's code, or one of {@link SdkErrorCode}. */
  code: ErrorCode
  /** What went wrong, naming the method and the page. */
  message: string
  /** 1-based number of the page that failed. */
  page: number
  /** HTTP status of the failed page's answer; 0 when the answer itself was fine. */
  status?: number
  /** The portal's errors of the failed page, if it failed at REST level. */
  portalErrors?: readonly SdkError[]
}

/**
 * A list could not be read to its end: a page failed at REST level, or a page cannot be continued (no usable id in
 * its last row, no progress). `fetchList` / `fetchTail` throw it after yielding the pages before; `callList` /
 * `callTail` turn it into a failed `Result` that still holds the rows read before.
 */
export class ListPageError extends SdkError {
  /** 1-based number of the page that failed. */
  readonly page: number
  /** The portal's errors of the failed page; empty when the page itself succeeded. */
  readonly portalErrors: readonly SdkError[]

  constructor(options: ListPageErrorOptions) {
    super({ code: options.code, message: options.message, status: options.status ?? 0 })
    this.name = 'ListPageError'
    this.page = options.page
    this.portalErrors = options.portalErrors ?? []
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), page: this.page }
  }
}
