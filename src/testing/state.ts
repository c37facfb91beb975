import { randomBytes } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { AuthorizationCodes } from './auth-codes.js'
import { FaultRules } from './faults.js'
import { catalogueFallback, EntityStores } from './generic-methods.js'
import { IdempotencyCache } from './idempotency.js'
import { DEFAULT_OPERATING_LIMIT, DEFAULT_RATE_LIMIT, LeakyBucket, OperatingLimiter } from './limits.js'
import { MethodRegistry, registerBuiltins } from './methods.js'
import { registerOpenApi } from './openapi-document.js'
import { registerFieldMethods } from './portal-fields.js'
import { RequestLogStore } from './request-log.js'
import { TokenStore } from './tokens.js'
import type { EmulatorAppStatus, PortalEmulatorOptions } from './types.js'
import { randomAlphanumeric, WebhookStore } from './webhooks.js'

/** Default OAuth client id of the emulated local application. */
export const DEFAULT_CLIENT_ID = 'local.65f0c0ffee0000.00000001'

/** Settings that can change while the emulator runs. */
export interface EmulatorSettings {
  readonly clientId: string
  readonly clientSecret: string
  readonly memberId: string
  readonly userId: number
  readonly applicationToken: string
  readonly status: EmulatorAppStatus
  readonly scope: string
  /** Whether the installing user (`userId`) is an administrator of the portal. */
  isAdmin: boolean
  /** Other users who are administrators; every other user is not. */
  readonly otherAdmins: Set<number>
  latencyMs: number
  /** Simulated cost per call, by lower-cased method name. */
  readonly methodCost: Map<string, number>
}

/** Addresses of both servers, known once they listen. */
export interface EmulatorEndpoints {
  portalOrigin: string
  /** `127.0.0.1:PORT` of the portal. */
  portalHost: string
  clientEndpoint: string
  oauthOrigin: string
  /** `127.0.0.1:PORT` of the OAuth server. */
  oauthHost: string
  serverEndpoint: string
  tokenUrl: string
}

/** Everything the request handlers share. */
export interface EmulatorState {
  readonly settings: EmulatorSettings
  endpoints: EmulatorEndpoints
  readonly now: () => number
  readonly log: RequestLogStore
  readonly tokens: TokenStore
  /** Authorization codes issued with `issueAuthorizationCode()`. */
  readonly codes: AuthorizationCodes
  readonly bucket: LeakyBucket
  readonly operating: OperatingLimiter
  readonly methods: MethodRegistry
  readonly webhooks: WebhookStore
  readonly idempotency: IdempotencyCache
  readonly faults: FaultRules
  /** Aborted by `close()`: pending delays end and their requests are abandoned. */
  readonly closing: AbortController
}

const UNSET_ENDPOINTS: EmulatorEndpoints = {
  portalOrigin: '',
  portalHost: '',
  clientEndpoint: '',
  oauthOrigin: '',
  oauthHost: '',
  serverEndpoint: '',
  tokenUrl: '',
}

/**
 * The default pair's scope: every scope the methods of README.md and docs/ need (`crm.*`, `user.*`, `tasks.*`,
 * `main.eventlog.tail`), so a documented example run on the emulator logs no scope warning.
 */
export const DEFAULT_SCOPE = 'crm,user,task,main'

/** Resolve the options into the shared state (endpoints are filled in once the servers listen). */
export function createEmulatorState(options: PortalEmulatorOptions = {}): EmulatorState {
  const now = options.now ?? Date.now
  const settings: EmulatorSettings = {
    clientId: options.clientId ?? DEFAULT_CLIENT_ID,
    clientSecret: options.clientSecret ?? randomAlphanumeric(40),
    memberId: options.memberId ?? randomBytes(16).toString('hex'),
    userId: options.userId ?? 1,
    applicationToken: options.applicationToken ?? randomBytes(16).toString('hex'),
    status: options.status ?? 'L',
    scope: options.scope ?? DEFAULT_SCOPE,
    isAdmin: options.isAdmin ?? true,
    otherAdmins: new Set(),
    latencyMs: options.latencyMs ?? 0,
    methodCost: new Map(
      Object.entries(options.methodCost ?? {}).map(([method, ms]) => [method.toLowerCase(), ms] as const),
    ),
  }
  const tokens = new TokenStore(
    now,
    {
      accessTokenTtl: options.accessTokenTtl ?? 3600,
      refreshTokenTtl: options.refreshTokenTtl ?? 180 * 24 * 3600,
      allowRefreshReuse: options.allowRefreshReuse ?? false,
      revokePreviousAccessToken: options.revokePreviousAccessToken ?? false,
    },
    settings.memberId,
  )
  const stores = new EntityStores()
  const methods = new MethodRegistry(catalogueFallback(stores))
  registerBuiltins(methods, {
    now,
    settings: () => settings,
    isAdmin: (userId) => isPortalAdmin(settings, userId),
    lists: options.lists ?? {},
    stores,
  })
  registerFieldMethods(methods)
  registerOpenApi(methods)
  return {
    settings,
    endpoints: { ...UNSET_ENDPOINTS },
    now,
    log: new RequestLogStore(options.logLimit),
    tokens,
    codes: new AuthorizationCodes(now),
    bucket: new LeakyBucket(options.rateLimit === undefined ? DEFAULT_RATE_LIMIT : options.rateLimit),
    operating: new OperatingLimiter(
      options.operatingLimit === undefined ? DEFAULT_OPERATING_LIMIT : options.operatingLimit,
    ),
    methods,
    webhooks: new WebhookStore(),
    idempotency: new IdempotencyCache(),
    faults: new FaultRules(),
    closing: closingController(),
  }
}

/** Aborted when the emulator closes; every delayed or held request listens to it, hundreds at once in a soak. */
function closingController(): AbortController {
  const controller = new AbortController()
  setMaxListeners(0, controller.signal)
  return controller
}

/** Whether `userId` administers the emulated portal: what `profile` answers in `ADMIN` and `user.admin` answers. */
export function isPortalAdmin(settings: EmulatorSettings, userId: number): boolean {
  return userId === settings.userId ? settings.isAdmin : settings.otherAdmins.has(userId)
}
