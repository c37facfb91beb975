import type { ApiVersion } from '../types/api-version.js'
import type { AuthStrategy } from './auth-strategy.js'
import { RestTransport, type TypeHttp } from './rest-transport.js'
import type { TransportContext } from './transport-context.js'

/** Where actions find the transport of an API version at each call (`setHttpClient` may have replaced it). */
export interface TransportSource {
  /** The transport of `version` now. */
  get(version: ApiVersion): TypeHttp
}

/** The transports of one instance, one per API version: the built-in one on first use, or the one set instead. */
export class TransportRegistry implements TransportSource {
  readonly #context: TransportContext
  readonly #auth: AuthStrategy
  readonly #byVersion = new Map<ApiVersion, TypeHttp>()

  constructor(context: TransportContext, auth: AuthStrategy) {
    this.#context = context
    this.#auth = auth
  }

  get(version: ApiVersion): TypeHttp {
    let transport = this.#byVersion.get(version)
    if (!transport) {
      transport = new RestTransport(version, this.#context, this.#auth)
      this.#byVersion.set(version, transport)
    }
    return transport
  }

  /** Puts `client` in place of the transport of `version`. */
  set(version: ApiVersion, client: TypeHttp): void {
    this.#byVersion.set(version, client)
  }

  /** Silences the client-side warning for the instance and every transport it has. */
  offClientSideWarning(): void {
    this.#context.offClientSideWarning()
    for (const transport of this.#byVersion.values()) transport.offClientSideWarning()
  }
}
