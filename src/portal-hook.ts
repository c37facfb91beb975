import { AbstractPortal, type AbstractPortalOptions } from './abstract-portal.js'
import { versionRoots } from './auth/endpoints.js'
import { parseWebhookUrl, validateHookParams } from './auth/validate-hook-params.js'
import { WebhookAuth } from './auth/webhook-auth.js'
import { SharedBucket } from './limits/shared-bucket.js'
import type { TokenStore } from './store/token-store.js'
import { validateStore } from './store/validate-store.js'
import type { ApiVersion } from './types/api-version.js'
import type { PortalHookParams } from './types/hook.js'

/** Options of `new PortalHook(params, options)`. */
export interface PortalHookOptions extends AbstractPortalOptions {
  /**
   * A store shared with the other clients of the same portal (in any process): they pace under one leaky bucket,
   * kept under the key `webhook:<portal host>`. Default: none, the instance paces alone.
   */
  store?: TokenStore
}

/**
 * The client for a portal's inbound webhook (`{portal}/rest/{userId}/{secret}/`): the same `actions`, `tools`,
 * limiter, logger and `destroy` as `PortalOAuth`, without OAuth. The secret is treated like a token: it is
 * removed from every log line and error message. Server-side only. Share one instance per webhook.
 */
export class PortalHook extends AbstractPortal {
  readonly #origin: string

  constructor(params: PortalHookParams, options?: PortalHookOptions) {
    const context = AbstractPortal.createContext('PortalHook', options, ['store'])
    const hook = validateHookParams(params)
    const store = validateStore(options?.store)
    if (store) {
      context.restrictions.useSharedBucket(
        new SharedBucket(store, `webhook:${new URL(hook.origin).host}`, context.logger),
      )
    }
    context.secrets.pin(hook.secret)
    const auth = new WebhookAuth(hook.origin, hook.userId, hook.secret)
    super(context, auth)
    this.#origin = hook.origin
    if (hook.remotePlainHttp) {
      context.logger.warn(
        'PortalHook: the portal is reached over plain http, so the webhook secret travels unencrypted',
      )
    }
  }

  /**
   * A client for a whole webhook URL, `https://portal.example.com/rest/1/secret/` (v3 `/rest/api/1/secret/` too).
   * Takes `process.env.X` as it is: a missing URL throws `JSSDK_INVALID_ARGUMENT` at run time.
   */
  static fromWebhookUrl(url: string | undefined, options?: PortalHookOptions): PortalHook {
    return new PortalHook(parseWebhookUrl(url), options)
  }

  /** The portal origin. */
  getTargetOrigin(): string {
    return this.#origin
  }

  /**
   * The REST root of each API version, `{portal}/rest/` and `{portal}/rest/api/`. The webhook's user id and secret
   * are left out, so the value is safe to log.
   */
  getTargetOriginWithPath(): Map<ApiVersion, string> {
    return versionRoots(`${this.#origin}/rest/`)
  }

  protected destroyAuth(): void {
    // Nothing to stop: a webhook has no refresh and no actors.
  }
}
