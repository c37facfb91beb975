import { createServer, type Server } from 'node:http'
import { LoopbackPortalEmulator, listen, shutdown } from './emulator.js'
import { type EmulatorListener, emulatorListener } from './http-server.js'
import { oauthRouter } from './oauth-server.js'
import { portalRouter } from './portal-server.js'
import { createEmulatorState } from './state.js'
import type { PortalEmulator, PortalEmulatorOptions } from './types.js'
import { randomAlphanumeric } from './webhooks.js'

/** Options of `startPortalEmulators()`: those of `startPortalEmulator()` but the ones each portal has its own of. */
export type PortalEmulatorFarmOptions = Omit<PortalEmulatorOptions, 'memberId' | 'applicationToken'>

/** Many emulated portals of one application behind two listeners, as `startPortalEmulators()` gives them. */
export interface PortalEmulatorFarm {
  /** The portals, each a full `PortalEmulator` (its own member id, tokens, bucket, log and faults). */
  readonly emulators: readonly PortalEmulator[]
  /** `'http://127.0.0.1:PORT'` of the listener every portal's REST API is served on. */
  readonly portalOrigin: string
  /** The OAuth server of every portal, trusted until `close()` (see `PortalEmulator.oauthServer`). */
  readonly oauthServer: string
  /** Closes every portal and both listeners. */
  close(): Promise<void>
}

/** Most portals one farm serves. */
const MAX_PORTALS = 100_000

/** A listener that hands each request to the portal its first path segment names, with that segment removed. */
function routingServer(portals: ReadonlyMap<string, EmulatorListener>): Server {
  return createServer((req, res) => {
    const url = req.url ?? '/'
    const slash = url.indexOf('/', 1)
    const portal = slash > 0 ? portals.get(url.slice(1, slash)) : undefined
    if (!portal) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
      res.end(
        JSON.stringify({ error: 'NOT_FOUND', error_description: 'No such portal on this emulator farm' }),
      )
      return
    }
    req.url = url.slice(slash)
    portal(req, res)
  })
}

/**
 * Starts `count` emulated portals of one application (one `clientId` and `clientSecret`) on two loopback listeners,
 * one for every portal's REST API and one for their OAuth server, instead of two per portal: ten thousand portals
 * take two ports and the connections their clients open, not twenty thousand listeners. Portal `m` answers under
 * `{portalOrigin}/{m}/rest/` and its OAuth server under `{oauthServer}/{m}/rest/` (token URL
 * `{oauthServer}/{m}/oauth/token/`); each behaves as a portal of `startPortalEmulator()` does.
 */
export async function startPortalEmulators(
  count: number,
  options: PortalEmulatorFarmOptions = {},
): Promise<PortalEmulatorFarm> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_PORTALS)
    throw new RangeError(`count must be an integer from 1 to ${MAX_PORTALS}, got ${String(count)}`)
  for (const key of ['memberId', 'applicationToken'] as const)
    if ((options as PortalEmulatorOptions)[key] !== undefined)
      throw new RangeError(`options.${key} cannot be given: each portal of a farm has its own`)
  const shared = { ...options, clientSecret: options.clientSecret ?? randomAlphanumeric(40) }
  const portalListeners = new Map<string, EmulatorListener>()
  const oauthListeners = new Map<string, EmulatorListener>()
  const portal = routingServer(portalListeners)
  const oauth = routingServer(oauthListeners)
  let portalHost: string
  let oauthHost: string
  try {
    portalHost = `127.0.0.1:${(await listen(portal)).port}`
    oauthHost = `127.0.0.1:${(await listen(oauth)).port}`
  } catch (error) {
    await Promise.all([shutdown(portal), shutdown(oauth)])
    throw error
  }
  const emulators: PortalEmulator[] = []
  for (let index = 0; index < count; index += 1) {
    const state = createEmulatorState(shared)
    const { memberId } = state.settings
    state.endpoints = {
      portalOrigin: `http://${portalHost}`,
      portalHost,
      clientEndpoint: `http://${portalHost}/${memberId}/rest/`,
      oauthOrigin: `http://${oauthHost}`,
      oauthHost,
      serverEndpoint: `http://${oauthHost}/${memberId}/rest/`,
      tokenUrl: `http://${oauthHost}/${memberId}/oauth/token/`,
    }
    portalListeners.set(memberId, emulatorListener(state, 'portal', portalRouter(state)))
    oauthListeners.set(memberId, emulatorListener(state, 'oauth', oauthRouter(state)))
    emulators.push(
      new LoopbackPortalEmulator(state, [], () => {
        portalListeners.delete(memberId)
        oauthListeners.delete(memberId)
      }),
    )
  }
  let closed: Promise<void> | undefined
  return {
    emulators,
    portalOrigin: `http://${portalHost}`,
    oauthServer: `http://${oauthHost}`,
    close() {
      closed ??= Promise.all(emulators.map((emulator) => emulator.close())).then(() =>
        Promise.all([shutdown(portal), shutdown(oauth)]).then(() => undefined),
      )
      return closed
    },
  }
}
