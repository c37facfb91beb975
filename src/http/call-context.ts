import type { CallTrace } from '../diagnostics/channels.js'
import type { AjaxQuery, AjaxResult } from '../results/ajax-result.js'
import type { ApiVersion } from '../types/api-version.js'
import type { CallOptions } from '../types/call.js'
import type { RequestAuth } from './auth-strategy.js'
import { RAW_BODY_OPTION, type RawBody } from './undici-fetch.js'
import type { validateCallOptions } from './validate-call.js'

/** What the library's own actions know about a call beyond its options; a transport may ignore it. */
export interface CallExtras {
  /** Every command of the call only reads (a batch of reads): a timeout or a dropped connection may be retried. */
  readOnly?: boolean
  /**
   * The methods the call runs besides its own (a batch's commands): each is checked against the pair's scope and,
   * unless `readOnly` is given, the call counts as a read when every one of them reads.
   */
  methods?: readonly string[]
}

/** One REST transport (one per {@link ApiVersion}), as `getHttpClient()` returns it. */
export interface TypeHttp {
  /** The REST API version this transport speaks. */
  readonly apiVersion: ApiVersion
  /** Sends one REST call. REST-level errors resolve with `isSuccess: false`; transport failures reject with an `AjaxError`. */
  call<T = unknown>(options: CallOptions, extras?: CallExtras): Promise<AjaxResult<T>>
  /** Silences the client-side runtime warning for this transport. */
  offClientSideWarning(): void
}

/** Per-call state of a transport, shared with ky's hooks through `context`. */
export interface CallContext {
  /**
   * What the call's transport does as each attempt leaves: ky's instance, and its hooks, are shared by every
   * transport with the same adapter and settings (a fleet's thousands of portals), so they act through the call.
   */
  attempt: AttemptHook
  options: ReturnType<typeof validateCallOptions>
  query: AjaxQuery
  attempts: number
  /** Whether every command of the call only reads (batches pass it; plain calls derive it from the method). */
  readOnly: boolean | undefined
  /** The methods a batch runs, whose reads decide {@link readOnly} when it is not given. */
  commands: readonly string[] | undefined
  /** `performance.now()` when the call was made. */
  started: number
  /** Set while a diagnostics channel of calls has subscribers. */
  trace: CallTrace | null
  /** The authorisation of the attempt: where it goes, then the token it carried as it left. */
  auth: RequestAuth
  /** The body of the attempt, written when it leaves; read by an adapter that takes it beside the `Request`. */
  body: CallBody
}

/**
 * A call's {@link RawBody}, which also names its call: handed to ky as the adapter's option, it carries the call to
 * ky's hooks too, so that ky is given no `context` option to merge per call.
 */
export interface CallBody extends RawBody {
  call: CallContext
}

/** What an attempt does as it leaves (take a slot, write the token): the `Request` to send, or none to keep it. */
export type AttemptHook = (
  context: CallContext,
  request: Request,
) => Request | undefined | Promise<Request | undefined>

/** The portal's answer to one attempt: its status and its body as JSON. */
export interface Answer {
  status: number
  body: unknown
}

/** The authorisation of a call not prepared yet. */
export const NO_AUTH: RequestAuth = { baseUrl: '', generation: 0 }

/** Whether `value` is a promise or another thenable (an `AuthStrategy` may return either, or the value itself). */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  // An answer body may be null (an empty 200): no thenable.
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

/**
 * The call a ky hook runs for: in its body beside the `Request` (see {@link CallBody}) for an adapter that takes it
 * there, else passed through ky's `context` option.
 */
export function callContextOf(options: { readonly context: unknown }): CallContext {
  const body = (options as { [RAW_BODY_OPTION]?: CallBody })[RAW_BODY_OPTION]
  return body ? body.call : (options.context as { call: CallContext }).call
}
