import type { AuthStrategy, RequestAuth } from '../http/auth-strategy.js'
import { ApiVersion } from '../types/api-version.js'

/**
 * How `PortalHook` authorises requests: the webhook's user id and secret are part of the REST root
 * (`{portal}/rest/{userId}/{secret}/`, v3 `{portal}/rest/api/{userId}/{secret}/`); no token, nothing to refresh.
 */
export class WebhookAuth implements AuthStrategy {
  readonly #roots: ReadonlyMap<ApiVersion, string>

  constructor(origin: string, userId: number, secret: string) {
    const path = `${userId}/${encodeURIComponent(secret)}/`
    this.#roots = new Map([
      [ApiVersion.v2, `${origin}/rest/${path}`],
      [ApiVersion.v3, `${origin}/rest/api/${path}`],
    ])
  }

  /** The version's root, at once: nothing to refresh. */
  prepare(apiVersion: ApiVersion): RequestAuth {
    return { baseUrl: this.#roots.get(apiVersion) ?? '', generation: 0 }
  }

  /** A webhook carries no token: its secret is in the root. */
  currentToken(): undefined {
    return undefined
  }

  /** A webhook's root never changes. */
  currentGeneration(): number {
    return 0
  }

  /** A webhook has no token to renew: a rejection is the answer. */
  rejected(): Promise<boolean> {
    return Promise.resolve(false)
  }
}
