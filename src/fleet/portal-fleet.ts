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
import {
  KNOWN_PROOFS_WAITING,
  ProofGate,
  REFUSAL_TTL_MS,
  REFUSALS_KEPT,
  STRANGER_PROOFS_WAITING,
  strangerProofsAtOnce,
} from './proof-gate.js'
import { type ProvedEvent, proveEvent } from './prove-event.js'
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
 * What an event's first decision returns when the stored pair refuses it while install events of its portal that
 * came before it are still being handled: it is decided again once they settled (see `handleEvent`).
 */
const AFTER_EARLIER_INSTALLS = Symbol('after the earlier installs')

/**
 * Whether an event may change the portal as the store holds it (`stored`): an install always (a reinstall may bring
 * a new application token); every other event needs the stored pair and must carry its application token.
 */
function admit(
  event: string,
  memberId: string,
  applicationToken: string,
  stored: PortalOAuthParams | null,
): void {
  if (event === 'ONAPPINSTALL') return
  if (!stored) throw notInstalled(memberId, `handleEvent ${event}`)
  if (!sameApplicationToken(applicationToken, stored.applicationToken))
    throw mismatch(memberId, 'the application token differs from the stored one')
}

/** {@link admit}, except that a refusal answers `false` when `mayWait` (the event will be decided again). */
function admitted(
  event: string,
  memberId: string,
  applicationToken: string,
  stored: PortalOAuthParams | null,
  mayWait: boolean,
): boolean {
  if (!mayWait) admit(event, memberId, applicationToken, stored)
  else
    try {
      admit(event, memberId, applicationToken, stored)
    } catch {
      return false
    }
  return true
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
  /** The proofs of install and update events: strangers' bounded per OAuth server (docs/fleet.md, "Floods"). */
  readonly #gate: ProofGate<ProvedEvent>
  /** Install and update events proving outside their portal's queue; `destroy()` waits for them. */
  readonly #proving = new Set<Promise<unknown>>()
  /**
   * Per portal, its install events being handled. A stranger's install is proved outside the portal's queue, so an
   * event right behind it (the first install's update, an event with a reinstall's application token) may find the
   * store not yet changed: an event the stored pair refuses waits for the installs that came before it, then is
   * decided again, as if they had run one after another.
   */
  readonly #installing = new Map<string, Set<Promise<unknown>>>()
  /**
   * Per portal with strangers' events proving: how many, and how many uninstalls were taken meanwhile. A stranger's
   * event proved after an uninstall that came after it is dropped, not written back over the removal.
   */
  readonly #removals = new Map<string, { events: number; removed: number }>()
  /** The default adapter's pool for the fleet's own requests and its clients' (see #clientHttpOptions), made on first use. */
  #pool: PooledFetch | null = null
  #destroyed = false

  constructor(options: PortalFleetOptions) {
    this.#settings = normalizeFleetOptions(options)
    this.#held = new HeldPortals(this.#settings.idleTimeoutMs, this.#settings.logger)
    const { logger, httpOptions } = this.#settings
    this.#gate = new ProofGate({
      atOnce: strangerProofsAtOnce(httpOptions.connections),
      waiting: STRANGER_PROOFS_WAITING,
      knownWaiting: KNOWN_PROOFS_WAITING,
      refusalTtlMs: REFUSAL_TTL_MS,
      refusalsKept: REFUSALS_KEPT,
      onShed: (server, shed, memberId) => {
        const which = memberId === undefined ? 'unproved install events' : `events of portal ${memberId}`
        const meta = memberId === undefined ? { server } : { server, memberId }
        if (shed === 0)
          logger.warn(`PortalFleet: too many ${which}; refusing more until they are checked`, meta)
        else logger.warn(`PortalFleet: ${which} were refused unchecked`, { ...meta, shed })
      },
    })
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
    const earlier = [...(this.#installing.get(memberId) ?? [])]
    const lifecycle = event === 'ONAPPINSTALL' || event === 'ONAPPUPDATE'
    const attempt = (mayWait: boolean): Promise<boolean | typeof AFTER_EARLIER_INSTALLS> =>
      lifecycle
        ? this.#takeEvent(event, memberId, auth, applicationToken, mayWait)
        : this.#portalEvent(event, memberId, auth, applicationToken, mayWait)
    const handling = (async (): Promise<boolean> => {
      const first = await attempt(earlier.length > 0)
      if (first !== AFTER_EARLIER_INSTALLS) return first
      await Promise.allSettled(earlier)
      // Refused for good (it throws) when the stored pair still refuses it.
      const again = await attempt(false)
      return again !== AFTER_EARLIER_INSTALLS && again
    })()
    if (event === 'ONAPPINSTALL') this.#track(this.#installing, memberId, handling)
    if (lifecycle) {
      this.#proving.add(handling)
      void handling.then(
        () => this.#proving.delete(handling),
        () => this.#proving.delete(handling),
      )
    }
    const changed = await handling
    return { event, memberId, data, changed }
  }

  /** An uninstall or another event of the portal, in its queue: see `handleEvent`. */
  #portalEvent(
    event: string,
    memberId: string,
    auth: Readonly<Record<string, string>>,
    applicationToken: string,
    mayWait: boolean,
  ): Promise<boolean | typeof AFTER_EARLIER_INSTALLS> {
    return this.#serially(memberId, async () => {
      // The event's tokens, and those of the pair the store holds, are kept out of what this rejects with.
      const secrets = this.#settings.secrets.with([auth.access_token, auth.refresh_token, applicationToken])
      const stored = await this.#readPair(memberId, secrets)
      if (!admitted(event, memberId, applicationToken, stored, mayWait)) return AFTER_EARLIER_INSTALLS
      if (event !== 'ONAPPUNINSTALL') return false
      // Its application token is no proof (any user of the application's page reads it): the stored pair must be dead.
      await requireUninstalled(memberId, await this.get(memberId))
      // The held client goes first: a refresh it has in flight must not write the pair back after the removal.
      await this.#held.release(memberId)
      await this.#storeCall(`removing portal ${memberId}`, (store) => store.remove(memberId), secrets)
      const proving = this.#removals.get(memberId)
      if (proving) proving.removed += 1
      this.#settings.logger.info('PortalFleet: portal uninstalled', { memberId })
      return true
    })
  }

  /** The portal's stored pair, whose tokens join the operation's `secrets` (kept out of what it rejects with). */
  async #readPair(memberId: string, secrets: OperationSecrets): Promise<PortalOAuthParams | null> {
    const stored = await this.#storeCall(
      `reading the pair of portal ${memberId}`,
      (store) => store.load(memberId),
      secrets,
    )
    if (stored) secrets.add(pairSecrets(stored))
    return stored
  }

  /** Keeps `promise` in `registry` under `memberId` until it settles. */
  #track(registry: Map<string, Set<Promise<unknown>>>, memberId: string, promise: Promise<unknown>): void {
    let set = registry.get(memberId)
    if (!set) {
      set = new Set()
      registry.set(memberId, set)
    }
    set.add(promise)
    const done = (): void => {
      set.delete(promise)
      if (set.size === 0 && registry.get(memberId) === set) registry.delete(memberId)
    }
    void promise.then(done, done)
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
    // Strangers' events still waiting for a proof are refused; proofs in flight finish, and so do their writes.
    this.#gate.close()
    await Promise.allSettled([...this.#proving])
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
   * An install or update event (docs/fleet.md, "Floods"): its pair is kept when its OAuth server is trusted and
   * confirms its access token, the portal says the token's user is an administrator (the installation rule,
   * `src/trust/installation-rule.ts`), and the pair is newer than the stored one; resolves to whether the store
   * changed. The proof runs outside the portal's queue, through the gate: an event of an installed portal that carries
   * its stored application token (known) in a lane of its own and in the portal's queue from the start, so that it is
   * written in arrival order with the portal's other events; a stranger's in the bounded lane, joining the queue once
   * proved, so that no stranger holds up the portal's queue while it is proved. Inside the queue the stored pair is
   * read again, and the newer pair wins. An update the stored pair refuses at first resolves to
   * {@link AFTER_EARLIER_INSTALLS} when `mayWait`.
   */
  async #takeEvent(
    event: string,
    memberId: string,
    auth: Readonly<Record<string, string>>,
    applicationToken: string,
    mayWait: boolean,
  ): Promise<boolean | typeof AFTER_EARLIER_INSTALLS> {
    const settings = this.#settings
    // The event's tokens, and those of the pairs the store holds, are kept out of what this rejects with.
    const secrets = settings.secrets.with([auth.access_token, auth.refresh_token, applicationToken])
    const read = (): Promise<PortalOAuthParams | null> => this.#readPair(memberId, secrets)
    const before = await read()
    if (!admitted(event, memberId, applicationToken, before, mayWait)) return AFTER_EARLIER_INSTALLS
    const claimed = eventPairParams(auth, Date.now())
    settings.trust.require('handleEvent: auth[server_endpoint]', claimed.serverEndpoint)
    if (!settings.plainHttpPortals && isRemotePlainHttp(new URL(claimed.clientEndpoint)))
      throw invalidArgument(
        'handleEvent: auth[client_endpoint]',
        'is plain http:// to another machine, where the access token could be read on the way; set options.plainHttpPortals to take such portals',
      )
    // The claimed expiry only decides to do nothing: a pair is taken with the expiry its OAuth server confirms.
    if (!newer(claimed, before)) return this.#ignoreOlder(event, memberId)
    const known = before !== null && sameApplicationToken(applicationToken, before.applicationToken)
    const proving = this.#prove(claimed, known)
    // Compare and write, in the portal's queue: the stored pair read again, the newer pair wins.
    const write = async (proved: ProvedEvent): Promise<boolean> => {
      const params = proved.expires === undefined ? claimed : { ...claimed, expires: proved.expires }
      if (!mayChange(proved.administrator ? 'administrator' : 'user'))
        throw notProved(memberId, "the token's user is not an administrator of the portal")
      const stored = await read()
      admit(event, memberId, applicationToken, stored)
      if (!newer(params, stored)) return this.#ignoreOlder(event, memberId)
      await this.#keep(params, secrets)
      settings.logger.info(`PortalFleet: portal ${event === 'ONAPPINSTALL' ? 'installed' : 'updated'}`, {
        memberId,
      })
      return true
    }
    if (known) {
      const turn = this.#serially(memberId, async () => write(await proving))
      // Its outcome is the caller's below, or the proof's refusal is.
      turn.catch(() => undefined)
      // A refused proof changes nothing and needs no turn: the event is refused as soon as the proof is, not after
      // the portal's events in front of it.
      await proving
      return turn
    }
    const counted = this.#removals.get(memberId) ?? { events: 0, removed: 0 }
    counted.events += 1
    this.#removals.set(memberId, counted)
    const removedBefore = counted.removed
    try {
      const proved = await proving
      return await this.#serially(memberId, async () => {
        if (counted.removed !== removedBefore) {
          settings.logger.info(`PortalFleet: ${event} ignored: the portal was uninstalled after it came`, {
            memberId,
          })
          return false
        }
        return write(proved)
      })
    } finally {
      counted.events -= 1
      if (counted.events === 0 && this.#removals.get(memberId) === counted) this.#removals.delete(memberId)
    }
  }

  /** The proof of an event's pair, through the gate (`known`: the event of an installed portal, its application token). */
  #prove(claimed: PortalOAuthParams, known: boolean): Promise<ProvedEvent> {
    const { httpOptions, secret } = this.#settings
    const proving = this.#gate.prove(
      {
        server: new URL(claimed.serverEndpoint).origin,
        memberId: claimed.memberId,
        known,
        // Everything the proof's verdict depends on (the client id is the fleet's own).
        about: [claimed.serverEndpoint, claimed.accessToken, claimed.memberId, claimed.clientEndpoint],
        fetch: this.#fetch(),
      },
      (fetch) =>
        proveEvent({
          params: claimed,
          clientId: secret.clientId,
          fetch,
          timeoutMs: httpOptions.timeout,
          headers: httpOptions.headers,
        }),
    )
    // Awaited later (a known event's once its turn in the queue comes): never an unhandled rejection meanwhile.
    proving.catch(() => undefined)
    return proving
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
