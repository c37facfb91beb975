import type {
  CallResult,
  CatalogueCallOptions,
  DocumentedResult,
  NoResultType,
  UncheckedCallOptions,
} from '../catalogue/call-types.js'
import type { TypeHttp } from '../http/rest-transport.js'
import type { AjaxResult } from '../results/ajax-result.js'
import type { CallOptions } from '../types/call.js'

/**
 * `actions.vN.call` at run time, and typed for a catalogue of one's own (`CallAction<C>`): one REST call. `C` is the
 * method catalogue (method name to parameter types), so a method name or parameter the docs do not have fails to
 * compile unless the call says `unchecked: true`. `X`: methods the checked overload leaves to other overloads;
 * `Res`: the documented results (method name to the type of `result`). `actions.v2.call` and `actions.v3.call` are
 * typed by the generated `V2CallMake` / `V3CallMake`, which add the deprecated methods' overloads.
 */
export class CallAction<C = Record<string, unknown>, X extends string = never, Res = Record<never, never>> {
  readonly #transport: () => TypeHttp

  constructor(transport: () => TypeHttp) {
    this.#transport = transport
  }

  /**
   * Sends `method` with `params`. Resolves with an {@link AjaxResult}; a REST-level error resolves with
   * `isSuccess: false`. Rejects with an `AjaxError` when a timeout or connection failure survives the retries, and
   * with a `RefreshTokenError` when the automatic refresh fails. The method must be one the catalogue documents,
   * with its required parameters; `unchecked: true` calls any other method. The result is typed as the docs show
   * it (`unknown` where they show none); `make<T>` types it as `T`. (Declared first: an editor completes `params`
   * from the signature a call that does not compile yet comes closest to, the first one.)
   */
  make<T = DocumentedResult, M extends string = string>(
    options: CatalogueCallOptions<C, M, X> & NoResultType<T>,
  ): Promise<AjaxResult<CallResult<T, Res, M>>>
  /**
   * Sends a method or parameters the catalogue lacks: `make({ method, params, unchecked: true })`, sent exactly as a
   * checked call.
   */
  make<T = unknown>(options: UncheckedCallOptions): Promise<AjaxResult<T>>
  make<T = unknown>(options: unknown): Promise<AjaxResult<T>> {
    // Both shapes are CallOptions at run time; `unchecked` is not read.
    return this.#transport().call<T>(options as CallOptions)
  }
}
