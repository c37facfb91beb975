import type { AccessTokenState } from '../machines/access-token.types.js'
import { AbstractPortal, type AbstractPortalOptions } from './abstract-portal.js'
import { AuthOAuthManager } from './auth/auth-oauth-manager.js'
import { originOf, versionRoots } from './auth/endpoints.js'
import {
  normalizeLockTtl,
  normalizeRefreshOptions,
  REFRESH_OPTION_KEYS,
  type RefreshOptions,
} from './auth/refresh-settings.js'
import { SharedBucket } from './limits/shared-bucket.js'
import { removedFromStore } from './store/removal-listeners.js'
import type { TokenStore } from './store/token-store.js'
import { validateStore } from './store/validate-store.js'
import { TrustedOAuthServers } from './trust/oauth-servers.js'
import type { ApiVersion } from './types/api-version.js'
import type {
  CallbackRefreshAuth,
  CustomRefreshAuth,
  PortalOAuthParams,
  PortalOAuthSecretInput,
} from './types/auth.js'
import { plainHttpEndpoints, validateAuthParams, validateSecret } from './validation/auth-params.js'
import { invalidArgument } from './validation/rules.js'

/** Options of `new PortalOAuth(authOptions, oAuthSecret, options)`. */
export interface PortalOAuthOptions extends AbstractPortalOptions, RefreshOptions {
  /** Clock in ms used to decide expiry (default `Date.now`); tests pass a fake one. */
  now?: () => number
  /**
   * Where the pair, the refresh lock and the leaky bucket of the portal are shared with the other instances built
   * on the same backend (`MemoryStore`, or `RedisStore` from `portal-oauth/redis` across processes). Default: none,
   * the instance keeps all of it to itself.
   */
  store?: TokenStore
  /**
   * Longest time one instance holds the portal's refresh lock in the store, ms: longer than `refreshTimeout`, at most
   * 120 000. Default `refreshTimeout` + 5 000 (15 000 with the default 10 s timeout), at most 30 000.
   */
  lockTtl?: number
  /**
   * The OAuth servers (origins) the client secret and refresh tokens may be sent to; a pair naming another
   * `serverEndpoint` is refused. Default: the vendor's `https://oauth.bitrix.info` and `https://oauth.bitrix24.tech`.
   * Origins in the `PORTAL_OAUTH_TRUSTED_SERVERS` environment variable (comma-separated; `portal-oauth/testing`
   * adds each emulator it runs) are trusted besides.
   */
  oauthServers?: readonly (string | URL)[]
}

/**
 * The client for OAuth 2.0 local applications (contract 1.1, 1.7): calls the portal's REST API with the access token,
 * refreshes the pair by itself (one refresh in flight per instance) and hands every new pair to the refresh callback.
 * Server-side only. Share one instance per portal.
 */
export class PortalOAuth extends AbstractPortal {
  readonly #auth: AuthOAuthManager
  #plainHttpWarned = false

  constructor(
    authOptions: PortalOAuthParams,
    oAuthSecret: PortalOAuthSecretInput,
    options?: PortalOAuthOptions,
  ) {
    const context = AbstractPortal.createContext('PortalOAuth', options, [
      'now',
      'store',
      'lockTtl',
      'oauthServers',
      ...REFRESH_OPTION_KEYS,
    ])
    const params = validateAuthParams(authOptions)
    const secret = validateSecret(oAuthSecret)
    const now = options?.now ?? Date.now
    if (typeof now !== 'function') throw invalidArgument('PortalOAuth: options.now', 'must be a function')
    const settings = normalizeRefreshOptions(options ?? {})
    const store = validateStore(options?.store)
    const trust = TrustedOAuthServers.from(options?.oauthServers, 'PortalOAuth: options.oauthServers')
    trust.require('PortalOAuth: authOptions.serverEndpoint', params.serverEndpoint)
    const auth = new AuthOAuthManager(params, secret, {
      now,
      logger: context.logger,
      secrets: context.secrets,
      instance: context,
      settings,
      store,
      lockTtlMs: normalizeLockTtl(options?.lockTtl, settings),
      inspect: context.inspect,
      trust,
    })
    if (store) {
      // The store tells at each call which pair it holds; a newer one held here (or any, after it lost its data) goes back.
      const compare = (expires: number | null): void => auth.reseedStore(expires)
      const removed = (): void => removedFromStore(auth)
      context.restrictions.useSharedBucket(
        new SharedBucket(store, params.memberId, context.logger, compare, removed),
      )
    }
    super(context, auth)
    this.#auth = auth
    // initIsAdmin() reads `profile` through the instance's own v2 call, which goes through `auth` again.
    auth.useProfileCall(this)
    this.#warnPlainHttp(params)
  }

  /** The auth manager (contract 1.6): `getAuthData()`, `refreshAuth()`, `getUniq()`, `isAdmin`. */
  get auth(): AuthOAuthManager {
    return this.#auth
  }

  /** The access-token machine's current state (`valid`, `expired`, `refreshing`, `dead`), for health checks and metrics. */
  get tokenState(): AccessTokenState {
    return this.#auth.tokenState
  }

  /**
   * Replaces the token pair held, validated like the constructor's `authOptions`: after the application was
   * re-authorised (the pair died: `tokenState` is `dead`) or a newer pair arrived from elsewhere. The pair is used
   * from now on; a refresh of the old pair still in flight is abandoned.
   */
  setAuthOptions(authOptions: PortalOAuthParams): void {
    const params = validateAuthParams(authOptions)
    this.#auth.trust.require('setAuthOptions: authOptions.serverEndpoint', params.serverEndpoint)
    this.#warnPlainHttp(params)
    this.#auth.replacePair(params)
  }

  /** Calls `profile` once and caches whether the user is an admin (then `auth.isAdmin` is readable). */
  initIsAdmin(requestId?: string): Promise<void> {
    return this.#auth.initIsAdmin(requestId)
  }

  /** Registers the callback run, and awaited, after every successful refresh; persist `b24OAuthParams` in it. */
  setCallbackRefreshAuth(callback: CallbackRefreshAuth): void {
    this.#auth.setCallbackRefreshAuth(callback)
  }

  /** Unregisters the refresh callback. */
  removeCallbackRefreshAuth(): void {
    this.#auth.removeCallbackRefreshAuth()
  }

  /** Registers a function that returns new tokens instead of contacting the OAuth server. */
  setCustomRefreshAuth(refresh: CustomRefreshAuth): void {
    this.#auth.setCustomRefreshAuth(refresh)
  }

  /** Unregisters the custom refresh function. */
  removeCustomRefreshAuth(): void {
    this.#auth.removeCustomRefreshAuth()
  }

  /** The portal origin, from the current `clientEndpoint`. */
  getTargetOrigin(): string {
    return originOf(this.#auth.getParams().clientEndpoint)
  }

  /** The REST root of each API version, from the current `clientEndpoint`. */
  getTargetOriginWithPath(): Map<ApiVersion, string> {
    return versionRoots(this.#auth.getParams().clientEndpoint)
  }

  /** Warns, once per instance, of endpoints reached over plain http on another machine (loopback is fine). */
  #warnPlainHttp(params: PortalOAuthParams): void {
    if (this.#plainHttpWarned) return
    const endpoints = plainHttpEndpoints(params)
    if (endpoints.length === 0) return
    this.#plainHttpWarned = true
    this.context.logger.warn(
      `PortalOAuth: plain http to a remote host in ${endpoints.join(', ')}: what it carries (tokens, the client secret) travels unencrypted; use https`,
    )
  }

  protected override authBusy(): boolean {
    return this.#auth.tokenState === 'refreshing'
  }

  protected destroyAuth(): Promise<void> {
    return this.#auth.destroy()
  }
}
