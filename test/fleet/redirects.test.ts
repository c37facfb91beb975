import { afterEach, describe, expect, it } from 'vitest'
import {
  exchangeAuthorizationCode,
  type FetchLike,
  MemoryStore,
  PortalOAuth,
  SdkErrorCode,
} from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type AttackerServer, reached, startAttackerServer } from './attacker-server.js'
import { createFleetRig } from './fleet-rig.js'
import { type HostileServer, startRedirector } from './hostile-servers.js'

// A trusted OAuth server, or the portal, answers a request that carries a secret or a token with a redirect to
// another host. Fetch follows redirects by default and sends a 307/308's body again: no such request may follow one,
// whatever the adapter, and the error names where it was sent (the origin only: the location's query may hold
// anything).

const rig = createFleetRig()
const servers: (AttackerServer | HostileServer)[] = []
afterEach(async () => {
  await rig.close()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** The adapters a user can give: Node's global fetch (docs/guide.md suggests it) and the default one. */
const ADAPTERS: [string, FetchLike | undefined][] = [
  ['adapter: fetch', (input, init) => fetch(input, init)],
  ['the default adapter', undefined],
]

/** The redirects a server can answer: 302 (the portal's domain change), 307 and 308 (the body is sent again). */
const STATUSES = [302, 307, 308]

/** An attacker whose server confirms and hands out anything for `portal`, and a trusted server redirecting to it. */
async function redirectingTo(
  portal: PortalEmulator,
  status: number,
): Promise<{ attacker: AttackerServer; redirector: HostileServer }> {
  const attacker = await startAttackerServer({
    clientId: portal.clientId,
    memberId: portal.memberId,
    clientEndpoint: portal.clientEndpoint,
  })
  servers.push(attacker)
  const redirector = await startRedirector(status, attacker.origin)
  servers.push(redirector)
  return { attacker, redirector }
}

/** The error of a refused redirect: its code, the location's origin, never the location's query. */
function refusedTowards(attacker: AttackerServer): unknown {
  return expect.objectContaining({
    code: SdkErrorCode.RedirectRefused,
    message: expect.stringContaining(`redirect to ${attacker.origin}`),
  })
}

function expectNothingSent(attacker: AttackerServer, ...secrets: string[]): void {
  expect(attacker.received).toEqual([])
  for (const secret of secrets) expect(reached(attacker, secret)).toBe(false)
}

function httpOptions(adapter: FetchLike | undefined): { adapter?: FetchLike } {
  return adapter ? { adapter } : {}
}

describe.each(ADAPTERS)(
  'with %s, a request carrying a secret or a token follows no redirect',
  (_, adapter) => {
    it.each(STATUSES)('the refresh request, answered %i: refused, nothing sent on', async (status) => {
      const portal = await rig.portal()
      const { attacker, redirector } = await redirectingTo(portal, status)
      const pair = { ...portal.issueAuthParams(), serverEndpoint: redirector.restRoot }
      const client = new PortalOAuth(
        pair,
        { clientId: portal.clientId, clientSecret: portal.clientSecret },
        {
          oauthServers: [redirector.origin],
          refreshRetries: 0,
          logger: createMemoryLogger(),
          httpOptions: httpOptions(adapter),
        },
      )
      const error = await client.auth.refreshAuth().then(
        () => null,
        (failure: unknown) => failure,
      )
      await client.destroy()
      expect(error).toEqual(refusedTowards(attacker))
      expect((error as Error).message).not.toContain('leak')
      expect(redirector.served).toHaveLength(1)
      expect(client.auth.getParams().accessToken).toBe(pair.accessToken)
      expectNothingSent(attacker, portal.clientSecret, pair.refreshToken)
    })

    it.each(STATUSES)('the code exchange, answered %i: refused, nothing sent on', async (status) => {
      const portal = await rig.portal()
      const { attacker, redirector } = await redirectingTo(portal, status)
      const code = portal.issueAuthorizationCode()
      const error = await exchangeAuthorizationCode({
        code,
        oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
        applicationToken: portal.applicationToken,
        serverEndpoint: redirector.restRoot,
        oauthServers: [redirector.origin],
        ...(adapter ? { adapter } : {}),
      }).then(
        () => null,
        (failure: unknown) => failure,
      )
      expect(error).toEqual(refusedTowards(attacker))
      expect((error as Error).message).not.toContain('leak')
      expectNothingSent(attacker, portal.clientSecret, code)
    })

    it.each(STATUSES)(
      "an install event's proof, answered %i: refused, nothing stored or sent on",
      async (status) => {
        const portal = await rig.portal()
        const { attacker, redirector } = await redirectingTo(portal, status)
        const fleet = rig.fleet(portal, {
          oauthServers: [redirector.origin],
          httpOptions: httpOptions(adapter),
        })
        const event = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
        event.set('auth[server_endpoint]', redirector.restRoot)
        const accessToken = event.get('auth[access_token]') ?? ''
        const error = await fleet.handleEvent(event).then(
          () => null,
          (failure: unknown) => failure,
        )
        expect(error).toEqual(refusedTowards(attacker))
        expect((error as Error).message).not.toContain('leak')
        expect(await fleet.store.load(portal.memberId)).toBeNull()
        expectNothingSent(attacker, accessToken, portal.clientSecret)
      },
    )

    it.each(STATUSES)(
      "an install event's admin proof (profile at the portal), answered %i: refused, nothing stored or sent on",
      async (status) => {
        const portal = await rig.portal()
        const { attacker, redirector } = await redirectingTo(portal, status)
        // A trusted OAuth server confirms the event for the portal at the redirector's address: the token then goes
        // there (profile, to ask whether its user is an administrator), and the redirector sends it elsewhere.
        const confirming = await startAttackerServer({
          clientId: portal.clientId,
          memberId: portal.memberId,
          clientEndpoint: redirector.restRoot,
        })
        servers.push(confirming)
        const fleet = rig.fleet(portal, {
          oauthServers: [confirming.origin],
          httpOptions: httpOptions(adapter),
        })
        const event = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
        event.set('auth[server_endpoint]', confirming.restRoot)
        event.set('auth[client_endpoint]', redirector.restRoot)
        event.set('auth[domain]', new URL(redirector.origin).host)
        const accessToken = event.get('auth[access_token]') ?? ''
        const error = await fleet.handleEvent(event).then(
          () => null,
          (failure: unknown) => failure,
        )
        expect(error).toEqual(refusedTowards(attacker))
        expect(error).toMatchObject({ request: { method: 'profile' } })
        expect((error as Error).message).not.toContain('leak')
        expect(confirming.received.map((entry) => entry.path)).toEqual(['/rest/app.info/'])
        expect(redirector.served.map((entry) => entry.path)).toEqual(['/rest/profile'])
        expect(await fleet.store.load(portal.memberId)).toBeNull()
        expectNothingSent(attacker, accessToken, portal.clientSecret)
      },
    )

    it.each(STATUSES)(
      'a REST call, answered %i: refused with the new origin, the token not sent on',
      async (status) => {
        const portal = await rig.portal()
        const { attacker, redirector } = await redirectingTo(portal, status)
        const pair = { ...portal.issueAuthParams(), clientEndpoint: redirector.restRoot }
        const client = new PortalOAuth(
          pair,
          { clientId: portal.clientId, clientSecret: portal.clientSecret },
          { logger: createMemoryLogger(), httpOptions: httpOptions(adapter) },
        )
        for (const call of [
          () => client.actions.v2.call.make({ method: 'profile' }),
          () => client.actions.v3.call.make({ method: 'tasks.task.list', params: {} }),
        ]) {
          const error = await call().then(
            () => null,
            (failure: unknown) => failure,
          )
          expect(error).toEqual(refusedTowards(attacker))
          expect(error).toMatchObject({ name: 'AjaxError', status, attempts: 1 })
          expect((error as Error).message).not.toContain('leak')
        }
        await client.destroy()
        expect(redirector.served).toHaveLength(2)
        expectNothingSent(attacker, pair.accessToken)
      },
    )
  },
)

describe('an adapter that follows redirects whatever it is given', () => {
  // Residual risk (docs/security.md): the request has left by the time the client sees the answer. The client still
  // refuses the answer, so nothing the other host says is taken.
  const following: FetchLike = (input, init) => fetch(input, { ...init, redirect: 'follow' })

  it('a refresh answered from another origin is refused: the pair the other host handed out is not taken', async () => {
    const portal = await rig.portal()
    const { attacker, redirector } = await redirectingTo(portal, 307)
    const pair = { ...portal.issueAuthParams(), serverEndpoint: redirector.restRoot }
    const store = new MemoryStore()
    const client = new PortalOAuth(
      pair,
      { clientId: portal.clientId, clientSecret: portal.clientSecret },
      {
        oauthServers: [redirector.origin],
        refreshRetries: 0,
        store,
        logger: createMemoryLogger(),
        httpOptions: { adapter: following },
      },
    )
    await expect(client.auth.refreshAuth()).rejects.toMatchObject({
      code: SdkErrorCode.RedirectRefused,
      message: expect.stringMatching(new RegExp(`adapter followed a redirect to ${attacker.origin}`)),
    })
    expect(client.auth.getParams().accessToken).toBe(pair.accessToken)
    await client.destroy()
    expect(attacker.received).toHaveLength(1)
  })

  it('a REST call answered from another origin is refused, its answer not read', async () => {
    const portal = await rig.portal()
    const { attacker, redirector } = await redirectingTo(portal, 308)
    const client = new PortalOAuth(
      { ...portal.issueAuthParams(), clientEndpoint: redirector.restRoot },
      { clientId: portal.clientId, clientSecret: portal.clientSecret },
      { logger: createMemoryLogger(), httpOptions: { adapter: following } },
    )
    await expect(client.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      code: SdkErrorCode.RedirectRefused,
      message: expect.stringContaining(`adapter followed a redirect to ${attacker.origin}`),
    })
    await client.destroy()
  })
})

describe("the code exchange's refused redirect", () => {
  it('names the request and the status', async () => {
    const portal = await rig.portal()
    const { redirector } = await redirectingTo(portal, 307)
    const error = await exchangeAuthorizationCode({
      code: portal.issueAuthorizationCode(),
      oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
      applicationToken: portal.applicationToken,
      serverEndpoint: redirector.restRoot,
      oauthServers: [redirector.origin],
    }).then(
      () => null,
      (failure: unknown) => failure,
    )
    expect(error).toMatchObject({
      code: SdkErrorCode.RedirectRefused,
      status: 307,
      request: { method: 'oauth/token' },
    })
  })
})
