import { afterEach, describe, expect, it } from 'vitest'
import { exchangeAuthorizationCode, type FetchLike, PortalOAuth, SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type AttackerServer, startAttackerServer } from './attacker-server.js'
import { createFleetRig } from './fleet-rig.js'
import { type HostileServer, startHugeAnswer, startSlowBody } from './hostile-servers.js'

// Answers of the OAuth server and of the portal are bounded in size and in time, whoever sends them (a trusted
// server gone wrong, a man in the middle of a plain-http one): reading stops at the limit and the connection is
// closed, so the process never holds more than the limit; and the deadline covers the body, not only the headers.

const rig = createFleetRig()
const servers: (HostileServer | AttackerServer)[] = []
afterEach(async () => {
  await rig.close()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const ADAPTERS: [string, FetchLike | undefined][] = [
  ['adapter: fetch', (input, init) => fetch(input, init)],
  ['the default adapter', undefined],
]

/** The huge answer: 200 MB, made on the fly. */
const HUGE = 200_000_000
const MIB = 1024 * 1024

async function huge(): Promise<HostileServer> {
  const server = await startHugeAnswer(HUGE)
  servers.push(server)
  return server
}

async function slow(): Promise<HostileServer> {
  const server = await startSlowBody()
  servers.push(server)
  return server
}

function httpOptions(adapter: FetchLike | undefined): { adapter?: FetchLike } {
  return adapter ? { adapter } : {}
}

/** Every answer the server began was cut by the client, after fewer than `most` bytes. */
async function cutBefore(server: HostileServer, most: number): Promise<void> {
  await server.settled()
  expect(server.served.length).toBeGreaterThan(0)
  for (const served of server.served) {
    expect(served).toMatchObject({ finished: false, closedEarly: true })
    expect(served.bytesSent).toBeLessThan(most)
  }
}

function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  )
}

/**
 * An install event of `portal` that a trusted OAuth server (`oauthServers: [confirming.origin]`) confirms for the
 * portal at `server`'s address, so that the fleet asks `server` whether the token's user is an administrator.
 */
async function confirmedAt(
  portal: PortalEmulator,
  server: HostileServer,
): Promise<{ confirming: AttackerServer; event: URLSearchParams }> {
  const confirming = await startAttackerServer({
    clientId: portal.clientId,
    memberId: portal.memberId,
    clientEndpoint: server.restRoot,
  })
  servers.push(confirming)
  const event = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
  event.set('auth[server_endpoint]', confirming.restRoot)
  event.set('auth[client_endpoint]', server.restRoot)
  event.set('auth[domain]', new URL(server.origin).host)
  return { confirming, event }
}

/** A client of `portal` whose pair names `server` as its OAuth server (trusted) or its portal. */
function clientOf(
  portal: PortalEmulator,
  server: HostileServer,
  role: 'oauth' | 'portal',
  options: ConstructorParameters<typeof PortalOAuth>[2],
): PortalOAuth {
  const pair = portal.issueAuthParams()
  return new PortalOAuth(
    role === 'oauth'
      ? { ...pair, serverEndpoint: server.restRoot }
      : { ...pair, clientEndpoint: server.restRoot },
    { clientId: portal.clientId, clientSecret: portal.clientSecret },
    {
      logger: createMemoryLogger(),
      ...(role === 'oauth' ? { oauthServers: [server.origin] } : {}),
      ...options,
    },
  )
}

describe.each(ADAPTERS)('with %s, a 200 MB answer is cut at the limit', (_, adapter) => {
  it('of the OAuth server to a refresh: 1 MiB, not retried, no token in the message', async () => {
    const portal = await rig.portal()
    const server = await huge()
    const client = clientOf(portal, server, 'oauth', { httpOptions: httpOptions(adapter) })
    const error = await failure(client.auth.refreshAuth())
    await client.destroy()
    expect(error).toMatchObject({
      name: 'AjaxError',
      code: SdkErrorCode.AnswerTooLarge,
      message: expect.stringMatching(/^token refresh: the OAuth server's answer passed the limit of 1 MiB/),
    })
    expect((error as Error).message).not.toContain('aaaa')
    expect(server.served).toHaveLength(1)
    await cutBefore(server, 20 * MIB)
  })

  it('of the OAuth server to a code exchange', async () => {
    const portal = await rig.portal()
    const server = await huge()
    const error = await failure(
      exchangeAuthorizationCode({
        code: portal.issueAuthorizationCode(),
        oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
        applicationToken: portal.applicationToken,
        serverEndpoint: server.restRoot,
        oauthServers: [server.origin],
        ...(adapter ? { adapter } : {}),
      }),
    )
    expect(error).toMatchObject({
      code: SdkErrorCode.AnswerTooLarge,
      message: expect.stringContaining(
        "exchangeAuthorizationCode: the OAuth server's answer passed the limit of 1 MiB",
      ),
    })
    await cutBefore(server, 20 * MIB)
  })

  it("of the OAuth server to an install event's proof: nothing stored", async () => {
    const portal = await rig.portal()
    const server = await huge()
    const fleet = rig.fleet(portal, { oauthServers: [server.origin], httpOptions: httpOptions(adapter) })
    const event = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    event.set('auth[server_endpoint]', server.restRoot)
    const error = await failure(fleet.handleEvent(event))
    expect(error).toMatchObject({
      code: SdkErrorCode.AnswerTooLarge,
      message: expect.stringContaining("handleEvent: the OAuth server's answer passed the limit of 1 MiB"),
    })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
    await cutBefore(server, 20 * MIB)
  })

  it("of the portal to an install event's admin proof (profile): 1 MiB, nothing stored", async () => {
    const portal = await rig.portal()
    const server = await huge()
    const { confirming, event } = await confirmedAt(portal, server)
    const fleet = rig.fleet(portal, { oauthServers: [confirming.origin], httpOptions: httpOptions(adapter) })
    const error = await failure(fleet.handleEvent(event))
    expect(error).toMatchObject({
      code: SdkErrorCode.AnswerTooLarge,
      message: expect.stringContaining("handleEvent: the portal's answer passed the limit of 1 MiB"),
      request: { method: 'profile' },
    })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
    expect(server.served.map((served) => served.path)).toEqual(['/rest/profile'])
    await cutBefore(server, 20 * MIB)
  })

  it('of the portal to a REST call: 128 MiB by default, not retried', async () => {
    const portal = await rig.portal()
    const server = await huge()
    const client = clientOf(portal, server, 'portal', { httpOptions: httpOptions(adapter) })
    const error = await failure(client.actions.v2.call.make({ method: 'profile', requestId: 'big' }))
    await client.destroy()
    expect(error).toMatchObject({
      name: 'AjaxError',
      code: SdkErrorCode.AnswerTooLarge,
      message: expect.stringContaining("v2 profile: the portal's answer passed the limit of 128 MiB"),
      request: { apiVersion: 'v2', method: 'profile', requestId: 'big' },
      attempts: 1,
    })
    expect(server.served).toHaveLength(1)
    await cutBefore(server, 150 * MIB)
  })

  it('of the portal to a REST call, with a lower httpOptions.maxAnswerBytes', async () => {
    const portal = await rig.portal()
    const server = await huge()
    const client = clientOf(portal, server, 'portal', {
      httpOptions: { ...httpOptions(adapter), maxAnswerBytes: 2 * MIB },
    })
    const error = await failure(client.actions.v3.call.make({ method: 'tasks.task.list', params: {} }))
    await client.destroy()
    expect(error).toMatchObject({
      code: SdkErrorCode.AnswerTooLarge,
      message: expect.stringContaining("v3 tasks.task.list: the portal's answer passed the limit of 2 MiB"),
    })
    await cutBefore(server, 20 * MIB)
  })
})

/**
 * An adapter that sends the request without its signal, as an adapter over another HTTP library may: its answer's
 * body does not stop when the deadline passes, so only the client's own reading can stop it.
 */
const deafToSignal: FetchLike = async (input, init) => {
  const request = new Request(input, init)
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer()
  return fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    redirect: request.redirect,
  })
}

const FETCH: [string, FetchLike | undefined] = ['adapter: fetch', (input, init) => fetch(input, init)]
const DEAF: [string, FetchLike | undefined] = ['an adapter that drops the signal', deafToSignal]
const DEFAULT: [string, FetchLike | undefined] = ['the default adapter', undefined]

// The default adapter read a refresh, code exchange or REST answer whole inside the request (within its deadline)
// before this rule, and fetch's body heeds the refresh's signal: those cases are not repeated here.
describe('an answer whose body never ends is cut at the deadline', () => {
  it.each([DEAF])(
    'of the OAuth server to a refresh, with %s: the caller hears at refreshTimeout, the request ends at the lock TTL',
    async (_, adapter) => {
      const portal = await rig.portal()
      const server = await slow()
      const client = clientOf(portal, server, 'oauth', {
        refreshTimeout: 300,
        refreshRetries: 0,
        lockTtl: 1_000,
        httpOptions: httpOptions(adapter),
      })
      expect(await failure(client.auth.refreshAuth())).toMatchObject({ code: SdkErrorCode.RequestTimeout })
      await cutBefore(server, 1_000)
      await client.destroy()
    },
  )

  it.each([FETCH, DEAF])(
    'of the OAuth server to a code exchange, with %s: its timeout',
    async (_, adapter) => {
      const portal = await rig.portal()
      const server = await slow()
      const error = await failure(
        exchangeAuthorizationCode({
          code: portal.issueAuthorizationCode(),
          oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
          applicationToken: portal.applicationToken,
          serverEndpoint: server.restRoot,
          oauthServers: [server.origin],
          timeout: 300,
          ...(adapter ? { adapter } : {}),
        }),
      )
      expect(error).toMatchObject({ code: SdkErrorCode.RequestTimeout })
      await cutBefore(server, 1_000)
    },
  )

  it.each([FETCH, DEAF, DEFAULT])(
    "of the OAuth server to an install event's proof, with %s: httpOptions.timeout, nothing stored",
    async (_, adapter) => {
      const portal = await rig.portal()
      const server = await slow()
      const fleet = rig.fleet(portal, {
        oauthServers: [server.origin],
        httpOptions: { ...httpOptions(adapter), timeout: 300 },
      })
      const event = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
      event.set('auth[server_endpoint]', server.restRoot)
      expect(await failure(fleet.handleEvent(event))).toMatchObject({
        code: SdkErrorCode.RequestTimeout,
        message:
          'handleEvent: the OAuth server did not answer within 300 ms to check the event; nothing was changed',
      })
      expect(await fleet.store.load(portal.memberId)).toBeNull()
      await cutBefore(server, 1_000)
    },
  )

  it.each([FETCH, DEAF, DEFAULT])(
    "of the portal to an install event's admin proof (profile), with %s: httpOptions.timeout, nothing stored",
    async (_, adapter) => {
      const portal = await rig.portal()
      const server = await slow()
      const { confirming, event } = await confirmedAt(portal, server)
      const fleet = rig.fleet(portal, {
        oauthServers: [confirming.origin],
        httpOptions: { ...httpOptions(adapter), timeout: 300 },
      })
      expect(await failure(fleet.handleEvent(event))).toMatchObject({
        code: SdkErrorCode.RequestTimeout,
        message:
          "handleEvent: the portal did not answer within 300 ms to check the event's user; nothing was changed",
        request: { method: 'profile' },
      })
      expect(await fleet.store.load(portal.memberId)).toBeNull()
      await cutBefore(server, 1_000)
    },
  )

  it.each([FETCH, DEAF])('of the portal to a REST call, with %s: httpOptions.timeout', async (_, adapter) => {
    const portal = await rig.portal()
    const server = await slow()
    const client = clientOf(portal, server, 'portal', {
      httpOptions: { ...httpOptions(adapter), timeout: 300 },
    })
    const error = await failure(
      client.actions.v2.call.make({ method: 'profile', params: {}, retryOnNetworkError: false }),
    )
    expect(error).toMatchObject({
      code: SdkErrorCode.RequestTimeout,
      message: expect.stringContaining('v2 profile: no answer within 300 ms'),
    })
    await cutBefore(server, 1_000)
    await client.destroy()
  })
})
