import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { SecretRedactor } from '../errors/to-error.js'
import { type FetchLike, givenHttpOptions, type TypeHttpOptions } from '../http/http-options.js'
import { createPooledFetch, type PooledFetch } from '../http/undici-fetch.js'
import type { OperationSecrets } from '../logger/secret-registry.js'
import { PortalOAuth } from '../portal-oauth.js'
import { onRemovedFromStore } from '../store/removal-listeners.js'
import { answerWithin, callStore } from '../store/store-call.js'
import type { TokenStore } from '../store/token-store.js'
import { mayChange } from '../trust/installation-rule.js'
import type { PortalOAuthParams } from '../types/auth.js'
import { validateAuthParams } from '../validation/auth-params.js'
import { invalidArgument, isRemotePlainHttp } from '../validation/rules.js'
import { sameApplicationToken } from './application-token.js'
import { type EventTree, parseEventBody } from './event-body.js'
import { eventPairParams } from './event-params.js'
import { type FleetSettings, normalizeFleetOptions, type PortalFleetOptions } from './fleet-options.js'
import { HeldPortals } from './held-portals.js'
import { proveEvent } from './prove-event.js'
import { requireUninstalled } from './prove-uninstall.js'

/** What `handleEvent` resolves to. */
export interface FleetEventResult {
  /** The event code, upper case: `ONAPPINSTALL`, `ONAPPUPDATE`, `ONAPPUNINSTALL`, or another event of the portal. */
  event: string
  /** The portal the event came from. */
  memberId: string
  /** The event's `data[...]` fields (strings, nested as sent); empty when it has none. */
  data: EventTree
  /**
   * Whether the event changed the store: `false` for an install or update whose pair is not newer than the stored
   * one (a replay, or an event delivered late), and for events other than install, update and uninstall.
   */
  changed: boolean
}

/** A member id as stores key it: letters, digits, `-` and `_` (a portal's is 32 hex characters). */
const MEMBER_ID = /^[A-Za-z0-9_-]{1,64}$/

function mismatch(memberId: string, why: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.ApplicationTokenMismatch,
    message: `handleEvent: portal ${memberId}: ${why}; nothing was changed`,
  })
}

function notProved(memberId: string, why: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.EventNotProved,
    message: `handleEvent: portal ${memberId}: ${why}; nothing was changed`,
  })
}

function notInstalled(memberId: string, what: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.PortalNotInstalled,
    message: `${what}: portal ${memberId} is not installed (the store holds no pair for it)`,
  })
}

/** The secrets of a pair: its tokens and its application token. */
function pairSecrets(params: PortalOAuthParams): string[] {
  return [params.accessToken, params.refreshToken, params.applicationToken]
}

/**
 * Whether an event's pair is newer than the stored one (docs/fleet.md, "Replays"): it expires later. Two pairs that
 * expire in the same second cannot be ordered; the stored one, which works, stays.
 */
function newer(params: PortalOAuthParams, stored: PortalOAuthParams | null): boolean {
  return stored === null || params.expires > stored.expires
}

/**
 * The clients of every portal an application is installed on, over one {@link TokenStore}: install, update and
 * uninstall events keep the store's pairs, `get(memberId)` gives the portal's `PortalOAuth`. Fleets of several
 * processes on one shared store (`RedisStore`) see the same portals, and their clients share each portal's pair,
 * refresh and bucket.
 */
export class PortalFleet {
  readonly #settings: FleetSettings
  readonly #held: HeldPortals
  /** The events of one portal run one after another, in arrival order. */
  readonly #queues = new Map<string, Promise<unknown>>()
  /** The default adapter's pool for the fleet's own requests and its clients' (see #clientHttpOptions), made on first use. */
  #pool: PooledFetch | null = null
  #destroyed = false

  constructor(options: PortalFleetOptions) {
    this.#settings = normalizeFleetOptions(options)
    this.#held = new HeldPortals(this.#settings.idleTimeoutMs, this.#settings.logger)
  }

  /** The store the fleet keeps its portals in. */
  get store(): TokenStore {
    return this.#settings.store
  }

  /**
   * Handles an event POSTed by a portal: the raw form-encoded body, a `URLSearchParams`, or an object as a body
   * parser gives it. `ONAPPINSTALL` and `ONAPPUPDATE` store the event's pair only when its `server_endpoint` is one
   * of `oauthServers` and that server confirms the event's access token for the event's `member_id` and
   * `client_endpoint` (nothing else an unauthenticated sender can forge proves an install), the portal says the
   * token's user is an administrator (any user of the application's page holds a confirmed token), and only when the
   * pair is newer than the stored one (a replay changes nothing); `ONAPPUPDATE` and `ONAPPUNINSTALL` also need the
   * stored `application_token`, an `ONAPPUNINSTALL` is taken only once the portal refuses the stored pair, and any
   * other event is checked against the application token and changes nothing. Rejects, changing
   * nothing, with `JSSDK_INVALID_ARGUMENT` (a malformed or hostile body), `JSSDK_UNTRUSTED_OAUTH_SERVER`,
   * `JSSDK_EVENT_NOT_PROVED`, `NETWORK_ERROR` (the OAuth server could not be asked),
   * `JSSDK_APPLICATION_TOKEN_MISMATCH`, `JSSDK_PORTAL_NOT_INSTALLED` or `JSSDK_TOKEN_STORE_FAILED`.
   */
  async handleEvent(body: unknown): Promise<FleetEventResult> {
    this.#assertAlive()
    const { event, auth, data } = parseEventBody(body)
    const memberId = auth.member_id
    if (memberId === undefined || !MEMBER_ID.test(memberId))
      throw invalidArgument('handleEvent: auth[member_id]', 'is missing or not a member id')
    const applicationToken = auth.application_token
    if (applicationToken === undefined || applicationToken === '')
      throw mismatch(memberId, 'the event carries no application token')
    const changed = await this.#serially(memberId, async () => {
      // The event's tokens, and those of the pair the store holds, are kept out of what this rejects with.
      const secrets = this.#settings.secrets.with([auth.access_token, auth.refresh_token, applicationToken])
      const stored = await this.#storeCall(
        `reading the pair of portal ${memberId}`,
        (store) => store.load(memberId),
        secrets,
      )
      if (stored) secrets.add(pairSecrets(stored))
      const installs = event === 'ONAPPINSTALL'
      if (!installs && !stored) throw notInstalled(memberId, `handleEvent ${event}`)
      // An install may bring a new application token (a reinstall); everything else must carry the stored one.
      if (!installs && stored && !sameApplicationToken(applicationToken, stored.applicationToken))
        throw mismatch(memberId, 'the application token differs from the stored one')
      if (installs || event === 'ONAPPUPDATE') return this.#takePair(event, auth, stored, secrets)
      if (event !== 'ONAPPUNINSTALL') return false
      // Its application token is no proof (any user of the application's page reads it): the stored pair must be dead.
      await requireUninstalled(memberId, await this.get(memberId))
      // The held client goes first: a refresh it has in flight must not write the pair back after the removal.
      await this.#held.release(memberId)
      await this.#storeCall(`removing portal ${memberId}`, (store) => store.remove(memberId), secrets)
      this.#settings.logger.info('PortalFleet: portal uninstalled', { memberId })
      return true
    })
    return { event, memberId, data, changed }
  }

  /**
   * Stores a pair obtained by the application itself (`exchangeAuthorizationCode`), whatever the store held for the
   * portal; a held client takes it at once.
   */
  async install(params: PortalOAuthParams): Promise<void> {
    this.#assertAlive()
    const valid = validateAuthParams(params)
    this.#settings.trust.require('PortalFleet.install: params.serverEndpoint', valid.serverEndpoint)
    await this.#serially(valid.memberId, () => this.#keep(valid))
  }

  /**
   * The portal's client, built from the store's pair with the fleet's options and `{ store }`; the same instance
   * while it is held (released after `idleTimeout` without a `get()`: take it from here for each piece of work).
   * Rejects with `JSSDK_PORTAL_NOT_INSTALLED` when the store holds no pair. A held client is returned without asking
   * the store: after an uninstall handled by another fleet or process, its next call rejects with
   * `JSSDK_PORTAL_NOT_INSTALLED` (nothing is sent) and it is released, so the next `get()` rejects too.
   */
  async get(memberId: string): Promise<PortalOAuth> {
    this.#assertAlive()
    if (typeof memberId !== 'string' || !MEMBER_ID.test(memberId))
      throw invalidArgument('PortalFleet.get: memberId', 'must be a member id (letters, digits, - and _)')
    // A held client costs no store read: an uninstall handled elsewhere reaches it at its next call, whose slot
    // request answers that the portal was removed (the call rejects, the client is released).
    const held = this.#held.use(memberId)
    if (held) return held
    const stored = await this.#storeCall(`reading the pair of portal ${memberId}`, (store) =>
      store.load(memberId),
    )
    this.#assertAlive()
    if (!stored) throw notInstalled(memberId, 'PortalFleet.get')
    // Another get() may have built one while the store answered.
    const built = this.#held.use(memberId)
    if (built) return built
    const portal = this.#build(stored)
    portal.auth.pairIsStored()
    this.#held.hold(memberId, portal)
    onRemovedFromStore(portal.auth, () => {
      if (this.#held.peek(memberId) === portal) void this.#held.release(memberId)
    })
    return portal
  }

  /** Releases every held client (each destroyed, refreshes in flight finished); later calls reject. The store stays open. */
  async destroy(): Promise<void> {
    if (this.#destroyed) return
    this.#destroyed = true
    await Promise.allSettled([...this.#queues.values()])
    await this.#held.releaseAll()
    await this.#pool?.close()
  }

  #build(params: PortalOAuthParams): PortalOAuth {
    const settings = this.#settings
    const portal = new PortalOAuth(params, settings.secret, {
      store: settings.store,
      restrictionParams: settings.restrictionParams,
      httpOptions: this.#clientHttpOptions(),
      oauthServers: settings.oauthServers,
      ...(settings.givenLogger === undefined ? {} : { logger: settings.givenLogger }),
    })
    if (settings.callbackRefreshAuth) portal.setCallbackRefreshAuth(settings.callbackRefreshAuth)
    return portal
  }

  /**
   * The HTTP settings of a portal's client: the fleet's, with the fleet's pool as the adapter unless one was given.
   * One pool (and one ky instance) for every portal: a held client keeps no pool of its own between its calls.
   */
  #clientHttpOptions(): TypeHttpOptions {
    const given = givenHttpOptions(this.#settings.httpOptions)
    if (given.adapter) return given
    // The pool was made with the fleet's proxy; a client given an adapter takes no proxy of its own.
    const { proxy: _proxy, ...rest } = given
    return { ...rest, adapter: this.#fetch() }
  }

  /** Puts a trusted pair in the store and in the held client; its secrets and `secrets` are kept out of a failure. */
  async #keep(params: PortalOAuthParams, secrets = this.#settings.secrets.with([])): Promise<void> {
    await this.#storeCall(
      `keeping the pair of portal ${params.memberId}`,
      (store) => store.replace(params),
      secrets.add(pairSecrets(params)),
    )
    this.#held.peek(params.memberId)?.setAuthOptions(params)
  }

  /**
   * The pair of an install or update event, kept when its OAuth server is trusted and confirms its access token, the
   * portal says the token's user is an administrator (the installation rule, `src/trust/installation-rule.ts`), and
   * the pair is newer than `stored`; resolves to whether the store changed.
   */
  async #takePair(
    event: string,
    auth: Readonly<Record<string, string>>,
    stored: PortalOAuthParams | null,
    secrets: OperationSecrets,
  ): Promise<boolean> {
    const settings = this.#settings
    const claimed = eventPairParams(auth, Date.now())
    settings.trust.require('handleEvent: auth[server_endpoint]', claimed.serverEndpoint)
    if (!settings.plainHttpPortals && isRemotePlainHttp(new URL(claimed.clientEndpoint)))
      throw invalidArgument(
        'handleEvent: auth[client_endpoint]',
        'is plain http:// to another machine, where the access token could be read on the way; set options.plainHttpPortals to take such portals',
      )
    // The claimed expiry only decides to do nothing: a pair is taken with the expiry its OAuth server confirms.
    if (!newer(claimed, stored)) return this.#ignoreOlder(event, claimed.memberId)
    const { httpOptions } = settings
    const proved = await proveEvent({
      params: claimed,
      clientId: settings.secret.clientId,
      fetch: this.#fetch(),
      timeoutMs: httpOptions.timeout,
      headers: httpOptions.headers,
    })
    const params = proved.expires === undefined ? claimed : { ...claimed, expires: proved.expires }
    if (!mayChange(proved.administrator ? 'administrator' : 'user'))
      throw notProved(params.memberId, "the token's user is not an administrator of the portal")
    if (!newer(params, stored)) return this.#ignoreOlder(event, claimed.memberId)
    await this.#keep(params, secrets)
    settings.logger.info(`PortalFleet: portal ${event === 'ONAPPINSTALL' ? 'installed' : 'updated'}`, {
      memberId: params.memberId,
    })
    return true
  }

  /** An event whose pair is not newer than the stored one (a replay, a late delivery): logged, nothing changed. */
  #ignoreOlder(event: string, memberId: string): false {
    this.#settings.logger.info(`PortalFleet: ${event} ignored: its pair is not newer than the stored one`, {
      memberId,
    })
    return false
  }

  /** The adapter of the fleet's own requests: `httpOptions.adapter`, or a pool with the fleet's proxy settings. */
  #fetch(): FetchLike {
    const { httpOptions } = this.#settings
    if (httpOptions.adapter) return httpOptions.adapter
    this.#pool ??= createPooledFetch(httpOptions)
    return this.#pool.fetch
  }

  /**
   * One call of the store: a synchronous throw, a failure, or no answer within the fleet's `httpOptions.timeout`
   * reject with `JSSDK_TOKEN_STORE_FAILED` naming `what`, so that an event, an install or a `get()` never hangs on the
   * store, and neither do the portal's later events queued behind it. Its message and `cause` (a redacted copy of the
   * store's error, never the error itself) hold none of `secrets`: the operation's, over the fleet's client secret.
   */
  #storeCall<T>(
    what: string,
    call: (store: TokenStore) => Promise<T>,
    secrets: SecretRedactor = this.#settings.secrets,
  ): Promise<T> {
    const { store, httpOptions } = this.#settings
    return answerWithin(
      what,
      callStore(() => call(store)),
      { ms: httpOptions.timeout, secrets, copyCause: true },
    )
  }

  /** Runs `task` after the portal's earlier events; its outcome is the caller's, the queue goes on either way. */
  #serially<T>(memberId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(memberId) ?? Promise.resolve()
    const run = previous.then(task, task)
    const tail = run.catch(() => undefined)
    this.#queues.set(memberId, tail)
    void tail.then(() => {
      if (this.#queues.get(memberId) === tail) this.#queues.delete(memberId)
    })
    return run
  }

  #assertAlive(): void {
    if (this.#destroyed)
      throw new SdkError({
        code: SdkErrorCode.Destroyed,
        message: 'PortalFleet was destroyed; create a new one',
      })
  }
}
