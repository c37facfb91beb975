import type { TypeEnumAppStatus } from './app-status.js'

/** Token data received from the portal (contract 1.2). `expires` is a Unix time in seconds. */
export interface PortalOAuthParams {
  /** Application token issued at install time. */
  applicationToken: string
  /** Id of the user the token belongs to. */
  userId: number
  /** Portal member id. */
  memberId: string
  /** Current access token. */
  accessToken: string
  /** Refresh token used by `refreshAuth`. */
  refreshToken: string
  /** Access token expiration as a Unix timestamp in seconds (not milliseconds). */
  expires: number
  /** Token lifetime in seconds. */
  expiresIn: number
  /** Comma-separated scopes. */
  scope: string
  /** Portal domain. */
  domain: string
  /** Portal REST root, an absolute URL ending in `/rest/`. */
  clientEndpoint: string
  /** OAuth server REST root, an absolute URL ending in `/rest/`. */
  serverEndpoint: string
  /** Application status letter. */
  status: TypeEnumAppStatus
}

/** Application credentials (contract 1.3). */
export interface PortalOAuthSecret {
  /** OAuth `client_id` of the application. */
  clientId: string
  /** OAuth `client_secret` of the application. */
  clientSecret: string
}

/**
 * The credentials `new PortalOAuth(...)` takes: each may come straight from `process.env`; a missing one throws
 * `JSSDK_INVALID_ARGUMENT` at run time.
 */
export type PortalOAuthSecretInput = { [Key in keyof PortalOAuthSecret]: PortalOAuthSecret[Key] | undefined }

/** Result of a custom refresh function (contract 1.4), in the OAuth server's snake_case. */
export interface HandlerRefreshAuth {
  /** New access token. */
  access_token: string
  /** New refresh token. */
  refresh_token: string
  /** Expiry of the new access token, Unix seconds. Computed from `expires_in` when missing. */
  expires: number
  /** Lifetime of the new access token in seconds. */
  expires_in: number
  /** Portal REST root. */
  client_endpoint: string
  /** OAuth server REST root. */
  server_endpoint: string
  /** Portal member id. */
  member_id: string
  /** Comma-separated scopes. */
  scope: string
  /** Application status letter. */
  status: TypeEnumAppStatus
  /** Domain reported by the OAuth server (its own host, not the portal's). */
  domain: string
}

/** Current authorisation data as returned by `getAuthData()`. */
export interface AuthData {
  /** Current access token. */
  access_token: string
  /** Current refresh token. */
  refresh_token: string
  /** Expiry of the access token, Unix seconds. */
  expires: number
  /** Lifetime of the access token in seconds. */
  expires_in: number
  /** Portal domain. */
  domain: string
  /** Portal member id. */
  member_id: string
}

/** What the refresh callback receives after every successful refresh (contract 1.5). */
export interface RefreshAuthPayload {
  /** The new authorisation data. */
  authData: AuthData
  /** The new token pair and the rest of the parameters, in constructor shape: persist this. */
  b24OAuthParams: PortalOAuthParams
}

/** Callback run after every successful refresh; it is awaited. */
export type CallbackRefreshAuth = (payload: RefreshAuthPayload) => void | Promise<void>

/** Context a custom refresh function receives. */
export interface CustomRefreshContext {
  /** The refresh token to exchange. */
  refreshToken: string
  /** Aborted when the client is destroyed. */
  signal: AbortSignal
}

/** A function that obtains a new token pair instead of the default OAuth request. */
export type CustomRefreshAuth = (context: CustomRefreshContext) => Promise<HandlerRefreshAuth>

/** Authorisation actions every auth manager offers (contract 1.6). */
export interface AuthActions {
  /** Current auth data, or `false` when the access token has expired (a refresh then starts in the background). */
  getAuthData(): AuthData | false
  /** Refreshes the token pair now. Rejects with `RefreshTokenError` on an OAuth failure. */
  refreshAuth(): Promise<AuthData>
  /** `<prefix>_<memberId>`. */
  getUniq(prefix: string): string
  /** Whether the user is an admin; readable only after `initIsAdmin()` completed. */
  readonly isAdmin: boolean
}
