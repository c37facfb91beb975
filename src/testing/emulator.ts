import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { trustWhileRunning } from '../trust/oauth-servers.js'
import { createEmulatorServer } from './http-server.js'
import {
  type EmulatorInstallEventName,
  type EmulatorInstallEventOptions,
  installEventBody,
} from './install-events.js'
import { oauthRouter } from './oauth-server.js'
import { portalRouter } from './portal-server.js'
import { createEmulatorState, type EmulatorState } from './state.js'
import type {
  EmulatorAuthOverrides,
  EmulatorAuthParams,
  EmulatorDelayFilter,
  EmulatorDropFilter,
  EmulatorMethodHandler,
  EmulatorMethodOptions,
  EmulatorOAuthFailure,
  EmulatorOperatingLimit,
  EmulatorRateLimit,
  EmulatorTokenFailure,
  EmulatorTokenPatch,
  EmulatorWebhookOptions,
  PortalEmulator,
  PortalEmulatorOptions,
  RequestLog,
} from './types.js'

/** Listens on `port` of 127.0.0.1 (0: a random free one). */
export function listen(server: Server, port = 0): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}

/** Stops listening and closes every connection. */
export function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      server.closeAllConnections()
      resolve()
      return
    }
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

/** A port option: an integer 0 (any free port) to 65535. */
function port(value: number | undefined, name: string): number {
  if (value === undefined) return 0
  if (!Number.isInteger(value) || value < 0 || value > 65_535)
    throw new RangeError(`options.${name} must be an integer from 0 to 65535`)
  return value
}

function count(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`)
  return value
}

/** One emulated portal: its state, behind its own servers or behind the shared ones of an emulator farm. */
export class LoopbackPortalEmulator implements PortalEmulator {
  readonly #state: EmulatorState
  readonly #servers: Server[]
  /** Run once by `close()`: a farm stops routing to the portal. */
  readonly #onClose: (() => void) | undefined
  /** Ends the trust in this emulator's OAuth server that its start gave to clients of this process. */
  readonly #untrust: () => void
  #closed: Promise<void> | undefined

  constructor(state: EmulatorState, servers: Server[], onClose?: () => void) {
    this.#state = state
    this.#servers = servers
    this.#onClose = onClose
    this.#untrust = trustWhileRunning(state.endpoints.oauthOrigin)
  }

  get portalOrigin(): string {
    return this.#state.endpoints.portalOrigin
  }

  get clientEndpoint(): string {
    return this.#state.endpoints.clientEndpoint
  }

  get serverEndpoint(): string {
    return this.#state.endpoints.serverEndpoint
  }

  get tokenUrl(): string {
    return this.#state.endpoints.tokenUrl
  }

  get oauthServer(): string {
    return this.#state.endpoints.oauthOrigin
  }

  get clientId(): string {
    return this.#state.settings.clientId
  }

  get clientSecret(): string {
    return this.#state.settings.clientSecret
  }

  get memberId(): string {
    return this.#state.settings.memberId
  }

  get applicationToken(): string {
    return this.#state.settings.applicationToken
  }

  get currentAccessToken(): string | undefined {
    return this.#state.tokens.currentAccessToken
  }

  get currentRefreshToken(): string | undefined {
    return this.#state.tokens.currentRefreshToken
  }

  get log(): RequestLog {
    return this.#state.log
  }

  issueAuthParams(overrides?: EmulatorAuthOverrides): EmulatorAuthParams {
    const { settings, endpoints } = this.#state
    if (overrides?.userId !== undefined) count(overrides.userId, 'userId')
    const pair = this.#state.tokens.issue(overrides?.userId ?? settings.userId, overrides?.expiresIn)
    return {
      applicationToken: settings.applicationToken,
      userId: pair.access.userId,
      memberId: settings.memberId,
      accessToken: pair.access.token,
      refreshToken: pair.refresh.token,
      expires: pair.access.expires,
      expiresIn: pair.access.expiresIn,
      scope: settings.scope,
      domain: endpoints.portalHost,
      clientEndpoint: endpoints.clientEndpoint,
      serverEndpoint: endpoints.serverEndpoint,
      status: settings.status,
    }
  }

  issueAuthorizationCode(): string {
    return this.#state.codes.issue(this.#state.settings.userId)
  }

  installEvent(event: EmulatorInstallEventName, options?: EmulatorInstallEventOptions): string {
    if (!['ONAPPINSTALL', 'ONAPPUPDATE', 'ONAPPUNINSTALL'].includes(event))
      throw new RangeError('event must be ONAPPINSTALL, ONAPPUPDATE or ONAPPUNINSTALL')
    if (options?.expiresIn !== undefined) count(options.expiresIn, 'expiresIn')
    if (options?.userId !== undefined) count(options.userId, 'userId')
    return installEventBody(this.#state, event, options)
  }

  uninstall(): string {
    this.#state.tokens.revokeAll()
    return installEventBody(this.#state, 'ONAPPUNINSTALL')
  }

  createWebhook(options?: EmulatorWebhookOptions): string {
    const { settings, endpoints } = this.#state
    const hook = this.#state.webhooks.create(
      options?.userId ?? settings.userId,
      options?.scope ?? settings.scope,
    )
    return `${endpoints.portalOrigin}/rest/${hook.userId}/${hook.secret}/`
  }

  expireAccessTokens(): void {
    this.#state.tokens.expireAll()
  }

  failOAuth(error: EmulatorOAuthFailure, times = 1): void {
    this.#state.faults.addOAuthFailure({ ...error }, count(times, 'times'))
  }

  dropConnections(times: number, filter?: EmulatorDropFilter): void {
    this.#state.faults.addDrop(count(times, 'times'), { ...filter })
  }

  delayRequests(ms: number, times: number, filter?: EmulatorDelayFilter): void {
    this.#state.faults.addDelay(count(ms, 'ms'), count(times, 'times'), { ...filter })
  }

  holdRequests(times = 1, filter?: EmulatorDelayFilter): void {
    this.#state.faults.addHold(count(times, 'times'), { ...filter })
  }

  waitForHeld(held = 1): Promise<void> {
    return this.#state.faults.waitForHeld(count(held, 'count'))
  }

  releaseHeldRequests(): void {
    this.#state.faults.releaseHeld()
  }

  mutateTokenResponses(patch: EmulatorTokenPatch, times = 1): void {
    this.#state.faults.addTokenPatch(
      { set: { ...patch.set }, remove: [...(patch.remove ?? [])] },
      count(times, 'times'),
    )
  }

  failTokenRequests(failure: EmulatorTokenFailure, times = 1): void {
    this.#state.faults.addTokenFailure({ ...failure }, count(times, 'times'))
  }

  clearFaults(): void {
    this.#state.faults.clear()
  }

  setLatency(ms: number): void {
    this.#state.settings.latencyMs = count(ms, 'ms')
  }

  setRateLimit(limit: EmulatorRateLimit | false): void {
    this.#state.bucket.setLimit(limit === false ? false : { ...limit }, this.#state.now())
  }

  setOperatingLimit(limit: EmulatorOperatingLimit | false): void {
    this.#state.operating.setLimit(limit === false ? false : { ...limit })
  }

  setMethodCost(method: string, ms: number): void {
    this.#state.settings.methodCost.set(method.toLowerCase(), count(ms, 'ms'))
  }

  setAdmin(isAdmin: boolean, userId?: number): void {
    const { settings } = this.#state
    if (userId === undefined || userId === settings.userId) settings.isAdmin = isAdmin
    else if (isAdmin) settings.otherAdmins.add(count(userId, 'userId'))
    else settings.otherAdmins.delete(userId)
  }

  defineMethod(name: string, handler: EmulatorMethodHandler, options?: EmulatorMethodOptions): void {
    this.#state.methods.define(name, handler, options)
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#untrust()
      this.#onClose?.()
      this.#state.closing.abort()
      this.#closed = Promise.all(this.#servers.map(shutdown)).then(() => undefined)
    }
    return this.#closed
  }
}

/**
 * Start the loopback portal emulator: a fake portal (REST v2 `/rest/{method}`, v3 `/rest/api/{method}`, batches,
 * webhooks) and its OAuth server (`/oauth/token/`, `/rest/app.info`) on two ports of 127.0.0.1 (`options.port` and
 * `options.oauthPort`, free ones by default). Until
 * `close()`, its OAuth server is in `PORTAL_OAUTH_TRUSTED_SERVERS`: clients of this process, and of child processes
 * started meanwhile, trust it.
 */
export async function startPortalEmulator(options?: PortalEmulatorOptions): Promise<PortalEmulator> {
  const portalPort = port(options?.port, 'port')
  const oauthPort = port(options?.oauthPort, 'oauthPort')
  const state = createEmulatorState(options)
  const portal = createEmulatorServer(state, 'portal', portalRouter(state))
  const oauth = createEmulatorServer(state, 'oauth', oauthRouter(state))
  try {
    const portalAddress = await listen(portal, portalPort)
    const oauthAddress = await listen(oauth, oauthPort)
    const portalHost = `127.0.0.1:${portalAddress.port}`
    const oauthHost = `127.0.0.1:${oauthAddress.port}`
    state.endpoints = {
      portalOrigin: `http://${portalHost}`,
      portalHost,
      clientEndpoint: `http://${portalHost}/rest/`,
      oauthOrigin: `http://${oauthHost}`,
      oauthHost,
      serverEndpoint: `http://${oauthHost}/rest/`,
      tokenUrl: `http://${oauthHost}/oauth/token/`,
    }
  } catch (error) {
    await Promise.all([shutdown(portal), shutdown(oauth)])
    throw error
  }
  return new LoopbackPortalEmulator(state, [portal, oauth])
}
