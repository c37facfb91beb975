import type { TypeHttp } from '../http/rest-transport.js'
import type { AjaxResult } from '../results/ajax-result.js'
import type { CallOptions } from '../types/call.js'

/** A transport that also takes the extra knowledge of higher-level actions (the built-in `RestTransport`). */
interface TransportWithExtras extends TypeHttp {
  callWith<T = unknown>(options: CallOptions, extra: { readOnly?: boolean }): Promise<AjaxResult<T>>
}

function hasCallWith(transport: TypeHttp): transport is TransportWithExtras {
  return typeof (transport as Partial<TransportWithExtras>).callWith === 'function'
}

/**
 * Sends one call, telling the transport whether it only reads (so a timeout may be retried). A transport set
 * with `setHttpClient` that has no `callWith` gets a plain `call`.
 */
export function sendCall<T = unknown>(
  transport: TypeHttp,
  options: CallOptions,
  readOnly: boolean,
): Promise<AjaxResult<T>> {
  return hasCallWith(transport) ? transport.callWith<T>(options, { readOnly }) : transport.call<T>(options)
}
