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
  // Two fields rather than a Map: a fleet holds thousands of instances, and a Map of two entries weighs 400 bytes.
  #v2: TypeHttp | null = null
  #v3: TypeHttp | null = null

  constructor(context: TransportContext, auth: AuthStrategy) {
    this.#context = context
    this.#auth = auth
  }

  get(version: ApiVersion): TypeHttp {
    if (version === 'v2') {
      this.#v2 ??= new RestTransport(version, this.#context, this.#auth)
      return this.#v2
    }
    this.#v3 ??= new RestTransport(version, this.#context, this.#auth)
    return this.#v3
  }

  /** Puts `client` in place of the transport of `version`. */
  set(version: ApiVersion, client: TypeHttp): void {
    if (version === 'v2') this.#v2 = client
    else this.#v3 = client
  }

  /** Silences the client-side warning for the instance and every transport it has. */
  offClientSideWarning(): void {
    this.#context.offClientSideWarning()
    this.#v2?.offClientSideWarning()
    this.#v3?.offClientSideWarning()
  }
}
