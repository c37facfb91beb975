import type { ApiVersion } from '../types/api-version.js'

/** How one request is authorised: where it goes and which token it carries. */
export interface RequestAuth {
  /** REST root of the version, ending in `/` (`…/rest/`, `…/rest/api/`, or a webhook root). */
  baseUrl: string
  /** Access token to send as `auth` in the body; absent for webhooks. */
  token?: string
  /** Generation of the token pair the token belongs to. */
  generation: number
}

/** What a transport needs from the auth side. `PortalOAuth` provides tokens; `PortalHook` a webhook URL. */
export interface AuthStrategy {
  /** The portal the requests go to, when the strategy knows it (traces name it; webhooks do not). */
  readonly memberId?: string | undefined
  /**
   * The scopes the pair was granted, comma-separated, when the strategy knows them (`PortalOAuth`; a webhook does
   * not): a call to a documented method outside them logs a warning.
   */
  readonly scope?: string | undefined
  /**
   * The authorisation of a request: returned at once when a usable token is at hand, else a promise that resolves
   * once the one refresh in flight has ended, waiting at most `waitMs` and until `signal` aborts. (A transport
   * awaits a promise only when it gets one: calls whose token is at hand take no extra turn.)
   */
  prepare(apiVersion: ApiVersion, signal?: AbortSignal, waitMs?: number): RequestAuth | Promise<RequestAuth>
  /**
   * The portal rejected `auth` with `code` (`expired_token` / `invalid_token`). Resolves `true` when the call
   * should be sent once more with a fresh `prepare()`; rejects when the refresh fails.
   */
  rejected(auth: RequestAuth, code: string, signal?: AbortSignal, waitMs?: number): Promise<boolean>
  /** The token to write into a request as it leaves (after its slot); synchronous. */
  currentToken(): string | undefined
  /** The generation of {@link currentToken}'s pair. */
  currentGeneration(): number
}
