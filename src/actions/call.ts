import type { TypeHttp } from '../http/rest-transport.js'
import type { AjaxResult } from '../results/ajax-result.js'
import type { CallOptions } from '../types/call.js'

/** `actions.vN.call`: one REST call. */
export class CallAction {
  readonly #transport: () => TypeHttp

  constructor(transport: () => TypeHttp) {
    this.#transport = transport
  }

  /**
   * Sends `method` with `params`. Resolves with an {@link AjaxResult}; a REST-level error resolves with
   * `isSuccess: false`. Rejects with an `AjaxError` when a timeout or connection failure survives the retries, and
   * with a `RefreshTokenError` when the automatic refresh fails.
   */
  make<T = unknown>(options: CallOptions): Promise<AjaxResult<T>> {
    return this.#transport().call<T>(options)
  }
}
