import type { PortalOAuthParams } from '../types/auth.js'
/** Application status letters, as in `app.info` STATUS and the token response `status` (contract 2.2). */
export type EmulatorAppStatus = 'F' | 'D' | 'T' | 'P' | 'L' | 'S'

/** Names of the built-in list fixtures whose row counts can be configured with `PortalEmulatorOptions.lists`. */
export type ListName =
  | 'crm.item.list'
  | 'user.get'
  | 'tasks.task.list'
  | 'main.eventlog.tail'
  | 'crm.contact.list'
  | 'crm.deal.list'

/** REST API generation: v2 is `/rest/{method}`, v3 is `/rest/api/{method}`. */
export type EmulatorApiVersion = 'v2' | 'v3'

/** Which of the two loopback servers a request reached. */
export type EmulatorServerName = 'portal' | 'oauth'

/** Leaky bucket settings: each request adds 1, the level drains by `drainRate` per second, above `burstLimit` → 503. */
export interface EmulatorRateLimit {
  /** Requests the bucket holds before the portal rejects. */
  burstLimit: number
  /** Requests drained per second. */
  drainRate: number
}

/** Operating (resource time) limit per method: the sum over `windowMs` (10 buckets) may not reach `limitMs`. */
export interface EmulatorOperatingLimit {
  /** The window the budget is counted over, ms. */
  windowMs: number
  /** A method's budget of execution time per window, ms. */
  limitMs: number
  /**
   * Whether answers carry `time.operating_reset_at` beside `time.operating` (default `true`, as the cloud portal
   * does); `false` answers with `operating` alone, as some of the portal's documented samples do.
   */
  sendsResetAt?: boolean
}

/** Options of `startPortalEmulator()`. Every member is optional; defaults are given per member. */
export interface PortalEmulatorOptions {
  /** OAuth client id, default `'local.65f0c0ffee0000.00000001'`. */
  clientId?: string
  /** OAuth client secret, default 40 random characters. */
  clientSecret?: string
  /** Portal member id, default 32 random hex characters. */
  memberId?: string
  /** User the issued tokens belong to, default 1. */
  userId?: number
  /** Application token of the install, default 32 random hex characters. */
  applicationToken?: string
  /** Application status letter, default `'L'`. */
  status?: EmulatorAppStatus
  /** Comma-separated scope, default `'crm,user,task,main'` (what the documentation's examples call). */
  scope?: string
  /** Whether the installing user (`userId`) administers the portal (`profile`'s `ADMIN`, `user.admin`), default true. */
  isAdmin?: boolean
  /** Access token lifetime in seconds, default 3600. */
  accessTokenTtl?: number
  /** Refresh token lifetime in seconds, default 180 days. */
  refreshTokenTtl?: number
  /** When false (default) a refresh token works once; reusing it answers 400 `invalid_grant`. */
  allowRefreshReuse?: boolean
  /** When true a refresh also invalidates the access token of the old pair (REST → 401 `invalid_token`). Default false. */
  revokePreviousAccessToken?: boolean
  /** Leaky bucket per portal, default `{ burstLimit: 50, drainRate: 2 }`; `false` switches it off. */
  rateLimit?: EmulatorRateLimit | false
  /** Operating limit per method, default `{ windowMs: 600_000, limitMs: 480_000 }`; `false` switches it off. */
  operatingLimit?: EmulatorOperatingLimit | false
  /** Simulated handler time in ms added to a method's operating budget per call (no real sleep). Default 0. */
  methodCost?: Record<string, number>
  /** Artificial delay in ms before every answer of both servers, default 0. */
  latencyMs?: number
  /** Clock in ms (default `Date.now`); pass a fake clock to move time in tests. */
  now?: () => number
  /** Row counts of the list fixtures; default 120 rows each. Rows are generated on demand, 100 000 is cheap. */
  lists?: Partial<Record<ListName, number>>
  /** Keep only the newest `logLimit` log entries (for long benchmarks); default unlimited. */
  logLimit?: number
  /** Port of the portal on 127.0.0.1, default 0 (a free port chosen by the system). */
  port?: number
  /** Port of the OAuth server on 127.0.0.1, default 0 (a free port chosen by the system). */
  oauthPort?: number
}

/**
 * A token pair the emulator issues: the client's own `PortalOAuthParams`, so `new PortalOAuth(pair, secret)` takes
 * it as it is (`domain` is `'127.0.0.1:PORT'`, both endpoints the emulator's `…/rest/`, `status` `'L'`).
 */
export type EmulatorAuthParams = PortalOAuthParams

/** How a request carried its credentials. */
export type EmulatorAuthVia = 'body' | 'query' | 'bearer' | 'webhook' | 'none'

/** What kind of request a log entry records. */
export type EmulatorRequestKind = 'token' | 'rest' | 'batch' | 'webhook' | 'other'

/** One request received by the emulator (either server), with what was answered. */
export interface RequestLogEntry {
  /** Sequence number, increasing over the emulator's life (not reset by `clear()`). */
  seq: number
  /** Arrival time in ms from `options.now`. */
  at: number
  /** Which server got it: `portal` or `oauth`. */
  server: EmulatorServerName
  /** HTTP method (`GET`, `POST`, ...). */
  httpMethod: string
  /** URL path without the query string. */
  path: string
  /** Query string parameters (flat, decoded, last value wins). */
  query: Record<string, string>
  /** Request headers, names lower-cased, repeated headers joined with `, `. */
  headers: Record<string, string>
  /** The `content-type` header, `''` when absent. */
  contentType: string
  /** Parsed JSON or form object (PHP bracket keys expanded), the raw string when unparsable, undefined when empty. */
  body: unknown
  /** The body as received. */
  rawBody: string
  /** What the request was (a REST call, a token request, ...). */
  kind: EmulatorRequestKind
  /** REST API version, for REST calls. */
  apiVersion?: EmulatorApiVersion
  /** REST method, lower-cased, without `.json` (`'batch'` for batches). */
  restMethod?: string
  /** Where the token came: the body, the query or a webhook path. */
  authVia?: EmulatorAuthVia
  /** The access token (REST) or refresh token (token endpoint) presented; never a webhook secret. */
  token?: string
  /** `grant_type` of a token endpoint request. */
  grantType?: string
  /** HTTP status answered; 0 while pending or when dropped before processing (`after: 'response'` keeps it). */
  status: number
  /** Error code answered (also set for `wrong_client`, which comes with HTTP 200). */
  errorCode?: string
  /** True when the emulator destroyed the socket instead of answering (`dropConnections`). */
  dropped?: boolean
  /** True when the client closed the connection before the answer was written (e.g. a client timeout). */
  clientClosed?: boolean
}

/** Every request received, in order, with helpers for assertions. */
export interface RequestLog {
  /** Every request so far, oldest first. */
  readonly entries: readonly RequestLogEntry[]
  /** Forget all entries so far (sequence numbers keep increasing). */
  clear(): void
  /** Token endpoint hits. */
  tokenRequests(): RequestLogEntry[]
  /** Token endpoint hits with `grant_type=refresh_token`. */
  refreshRequests(): RequestLogEntry[]
  /** Portal REST requests: v2, v3, batches and webhook calls. */
  restRequests(): RequestLogEntry[]
  /** Answers with status >= 400 or an error code, optionally only those with that code. */
  rejected(code?: string): RequestLogEntry[]
}

/** Context handed to a method handler. */
export interface EmulatorMethodContext {
  /** The REST API version the method was called through. */
  version: EmulatorApiVersion
  /** User of the token or webhook that made the call. */
  userId: number
  /** True for webhook calls (no application context). */
  isWebhook: boolean
}

/** A REST method implementation: returns the `result` (or an `EmulatorListPage`), or throws `EmulatorRestError`. */
export type EmulatorMethodHandler = (
  params: Record<string, unknown>,
  ctx: EmulatorMethodContext,
) => unknown | Promise<unknown>

/** Options of `defineMethod`. */
export interface EmulatorMethodOptions {
  /** API versions the method answers on, default both. */
  versions?: EmulatorApiVersion[]
}

/** An OAuth error forced with `failOAuth`. */
export interface EmulatorOAuthFailure {
  /** The OAuth `error` code (`invalid_grant`, ...). */
  error: string
  /** Its `error_description`. */
  error_description?: string
  /** HTTP status, default 400. */
  status?: number
}

/** Which requests `dropConnections` affects. */
export interface EmulatorDropFilter {
  /** Only requests to this server (`portal` or `oauth`); both when absent. */
  server?: EmulatorServerName
  /** REST method (lower-cased, `'batch'` for batches); a rule with a method never matches token requests. */
  method?: string
  /**
   * When to destroy the socket: `'headers'` before the body is read, `'body'` (default) after reading the body
   * without processing the request, `'response'` after processing it (side effects such as a token rotation
   * happen, only the answer is lost).
   */
  after?: 'headers' | 'body' | 'response'
}

/** A change `mutateTokenResponses` makes to the JSON body of successful token answers (the rotation still happens). */
export interface EmulatorTokenPatch {
  /** Keys set to these values (any JSON value: a wrong type, an unknown status letter, ...). */
  set?: Record<string, unknown>
  /** Keys removed from the answer. */
  remove?: string[]
}

/** A raw failure of the token endpoint, forced with `failTokenRequests`. */
export interface EmulatorTokenFailure {
  /** HTTP status, for example 500 or 503. */
  status: number
  /** Raw body, default an HTML error page. */
  body?: string
  /** `content-type` of the body, default `text/html; charset=utf-8`. */
  contentType?: string
  /**
   * When true the request is processed first (the pair rotates, and the new pair is lost with the answer); when
   * false (default) nothing happens server side.
   */
  processed?: boolean
}

/** Which requests `delayRequests` affects. */
export interface EmulatorDelayFilter {
  /** Only requests to this server (`portal` or `oauth`); both when absent. */
  server?: EmulatorServerName
  /** REST method (lower-cased, `'batch'` for batches); a rule with a method never matches token requests. */
  method?: string
}

/** Options of `createWebhook`. */
export interface EmulatorWebhookOptions {
  /** User the webhook acts as, default the emulator's `userId`. */
  userId?: number
  /** Recorded only; scopes are not enforced. */
  scope?: string
}

/** The tokens of the newest pair, each undefined when no longer valid. */
export interface EmulatorCurrentTokens {
  /** The access token the emulator takes now, if any. */
  accessToken: string | undefined
  /** The refresh token it takes now, if any. */
  refreshToken: string | undefined
}

/** A running emulator: a fake portal and its OAuth server on two loopback ports. */
export interface PortalEmulator {
  /** `'http://127.0.0.1:PORT'` of the portal. */
  readonly portalOrigin: string
  /** `'http://127.0.0.1:PORT/rest/'` of the portal. */
  readonly clientEndpoint: string
  /** `'http://127.0.0.1:OAUTHPORT/rest/'` of the OAuth server. */
  readonly serverEndpoint: string
  /** `'http://127.0.0.1:OAUTHPORT/oauth/token/'`. */
  readonly tokenUrl: string
  /**
   * `'http://127.0.0.1:OAUTHPORT'`, the OAuth server's origin. While the emulator runs it is in this process's
   * `PORTAL_OAUTH_TRUSTED_SERVERS`, so clients here and in child processes started meanwhile trust it.
   */
  readonly oauthServer: string
  /** OAuth `client_id` the emulator accepts. */
  readonly clientId: string
  /** OAuth `client_secret` the emulator accepts. */
  readonly clientSecret: string
  /** The emulated portal's member id. */
  readonly memberId: string
  /** The application token of the installation. */
  readonly applicationToken: string
  /**
   * A fresh token pair issued now; each call starts a new independent renewal chain. By default the installing
   * user's (`userId`); `overrides.userId` gives another user's, as the portal's page gives one to any user who
   * opens the application (`BX24.getAuth()`), with the installation's application token beside it.
   */
  issueAuthParams(overrides?: EmulatorAuthOverrides): EmulatorAuthParams
  /**
   * An authorization code as the portal's redirect to the application carries it: the token endpoint exchanges it
   * (`grant_type=authorization_code`) for a new pair once, within 30 s.
   */
  issueAuthorizationCode(): string
  /**
   * The raw `application/x-www-form-urlencoded` body the portal POSTs to the application's event handler for a
   * lifecycle event; an install or update carries a new pair, an uninstall no token.
   */
  installEvent(event: EmulatorInstallEventName, options?: EmulatorInstallEventOptions): string
  /**
   * Removes the application from the portal, as an administrator does: every token issued so far stops working (REST
   * → 401 `invalid_token`, refresh → `invalid_grant`), and the `ONAPPUNINSTALL` body the portal then POSTs is
   * returned. A later install event issues working tokens again. (`installEvent('ONAPPUNINSTALL')` only builds the
   * body, as anyone who holds the application token can.)
   */
  uninstall(): string
  /** A webhook base URL `{origin}/rest/{userId}/{secret}/` that the emulator accepts (no OAuth). */
  createWebhook(options?: EmulatorWebhookOptions): string
  /** The current valid access token of the newest pair (for assertions), undefined if none. */
  readonly currentAccessToken: string | undefined
  /** The current valid refresh token of the newest pair (for assertions), undefined if none. */
  readonly currentRefreshToken: string | undefined
  /** Every request received, in order. */
  readonly log: RequestLog
  /** Make every access token issued so far expired (REST → 401 `expired_token`). */
  expireAccessTokens(): void
  /** The next `times` token endpoint requests (default 1) answer this OAuth error; `status` default 400. */
  failOAuth(error: EmulatorOAuthFailure, times?: number): void
  /** Destroy the socket of the next `times` matching requests instead of answering (ECONNRESET on the client). */
  dropConnections(times: number, filter?: EmulatorDropFilter): void
  /** Answer the next `times` matching requests only after `ms` more milliseconds. */
  delayRequests(ms: number, times: number, filter?: EmulatorDelayFilter): void
  /**
   * Hold the next `times` matching requests (default 1) once their body is read and before they are processed, until
   * {@link releaseHeldRequests}: a refresh or a call that stays in flight as long as a test needs.
   */
  holdRequests(times?: number, filter?: EmulatorDelayFilter): void
  /** Resolves once `count` requests (default 1) are held at the same time. */
  waitForHeld(count?: number): Promise<void>
  /** Lets every held request go on (they are processed and answered) and drops the hold rules not used yet. */
  releaseHeldRequests(): void
  /**
   * The next `times` successful token answers (default 1; a refresh's or a code exchange's) get `patch` applied; the
   * pair rotates as usual.
   */
  mutateTokenResponses(patch: EmulatorTokenPatch, times?: number): void
  /** The next `times` token requests (default 1) answer `failure` (a 5xx with an HTML body, say). */
  failTokenRequests(failure: EmulatorTokenFailure, times?: number): void
  /** Forgets every forced fault not used yet (drops, delays, holds, token failures and patches); held requests go on. */
  clearFaults(): void
  /** Change the delay before every answer. */
  setLatency(ms: number): void
  /** Change the leaky bucket, keeping its current level; `false` switches it off and empties it. */
  setRateLimit(limit: EmulatorRateLimit | false): void
  /** Change (or switch off) the operating limit; accumulated time is kept. */
  setOperatingLimit(limit: EmulatorOperatingLimit | false): void
  /** Set the simulated cost in ms per call of one method. */
  setMethodCost(method: string, ms: number): void
  /**
   * Change whether a user administers the portal: what `profile` answers in `ADMIN` and `user.admin` answers. By
   * default the installing user (`userId`), an administrator unless `isAdmin: false`; every other user is not one
   * until this makes them one.
   */
  setAdmin(isAdmin: boolean, userId?: number): void
  /**
   * Register or replace a REST method (name is lower-cased). It wins over the built-in methods and over the generic
   * answer of a catalogue method, and is called without checking the catalogue's required parameters.
   */
  defineMethod(name: string, handler: EmulatorMethodHandler, options?: EmulatorMethodOptions): void
  /** Close both servers and all their sockets. */
  close(): Promise<void>
}

/** The application lifecycle events the emulator can send. */
export type EmulatorInstallEventName = 'ONAPPINSTALL' | 'ONAPPUPDATE' | 'ONAPPUNINSTALL'

/** Options of `installEvent()`. */
export interface EmulatorInstallEventOptions {
  /** Lifetime of the access token the event carries, s (default the emulator's `accessTokenTtl`); 0 gives an expired one. */
  expiresIn?: number
  /** `auth[application_token]` to send instead of the emulator's (a re-install brings a new one), `''` to leave it out. */
  applicationToken?: string
  /** The user whose tokens the event carries, default the installing user (`userId`). */
  userId?: number
}

/** Options of `issueAuthParams()`. */
export interface EmulatorAuthOverrides {
  /** Lifetime of the access token, s (default the emulator's `accessTokenTtl`); 0 gives an expired one. */
  expiresIn?: number
  /** The user the pair is issued to, default the installing user (`userId`). */
  userId?: number
}
