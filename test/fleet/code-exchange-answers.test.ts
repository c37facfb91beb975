import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { exchangeAuthorizationCode, type FetchLike, SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createFleetRig } from './fleet-rig.js'

// exchangeAuthorizationCode against OAuth servers that answer oddly, refuse, stall or cannot be reached.

const rig = createFleetRig()
afterEach(() => rig.close())

function exchange(portal: PortalEmulator, extra: Record<string, unknown> = {}) {
  return exchangeAuthorizationCode({
    code: portal.issueAuthorizationCode(),
    oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
    applicationToken: portal.applicationToken,
    serverEndpoint: portal.serverEndpoint,
    ...extra,
  })
}

/** How `pending` rejected. */
async function failure(pending: Promise<unknown>): Promise<{ code?: string; message: string }> {
  return pending.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error: unknown) => error as { code?: string; message: string },
  )
}

const UNUSABLE = "exchangeAuthorizationCode: the OAuth server's answer is not a usable pair: "

describe('exchangeAuthorizationCode reads the answer', () => {
  it('numbers given as digits, a missing expires (now plus expires_in), numbers out of range and a scope of the wrong type', async () => {
    const portal = await rig.portal()
    const expires = Math.floor(Date.now() / 1000) + 7_200
    portal.mutateTokenResponses({ set: { expires: String(expires), expires_in: '1800', user_id: '7' } })
    expect(await exchange(portal)).toMatchObject({ expires, expiresIn: 1800, userId: 7 })
    portal.mutateTokenResponses({ remove: ['expires'], set: { expires_in: 1200, scope: 42 } })
    const before = Math.floor(Date.now() / 1000)
    const computed = await exchange(portal)
    expect(computed.expires).toBeGreaterThanOrEqual(before + 1200)
    expect(computed.expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1200)
    expect(computed.scope).toBe('')
    // Thirteen digits are not a number of this answer: the default lifetime applies.
    portal.mutateTokenResponses({ set: { expires_in: '1234567890123' } })
    expect((await exchange(portal)).expiresIn).toBe(3600)
  })

  it("the answer's scope, its server_endpoint only when trusted, and odd numbers read as absent", async () => {
    const portal = await rig.portal()
    expect((await exchange(portal)).scope).toBe('crm,user,task,main')
    const origin = new URL(portal.serverEndpoint).origin
    const other = 'https://oauth.other.example/rest/'
    portal.mutateTokenResponses({ set: { server_endpoint: other } })
    expect((await exchange(portal)).serverEndpoint).toBe(portal.serverEndpoint)
    portal.mutateTokenResponses({ set: { server_endpoint: other } })
    const trusting = { oauthServers: [origin, 'https://oauth.other.example'] }
    expect((await exchange(portal, trusting)).serverEndpoint).toBe(other)
    portal.mutateTokenResponses({ set: { server_endpoint: 42 } })
    expect((await exchange(portal, trusting)).serverEndpoint).toBe(portal.serverEndpoint)
    // An address that is no http(s) URL is trusted by no list: the server asked is kept.
    for (const odd of ['ftp://oauth.other.example/rest/', 'not a url']) {
      portal.mutateTokenResponses({ set: { server_endpoint: odd } })
      expect((await exchange(portal, trusting)).serverEndpoint).toBe(portal.serverEndpoint)
    }
    // A lifetime of 1.5 s or null is none: 3600 s; an expires of null is none: now plus the lifetime.
    portal.mutateTokenResponses({ set: { expires_in: 1.5, expires: null } })
    const before = Math.floor(Date.now() / 1000)
    const odd = await exchange(portal)
    expect(odd.expiresIn).toBe(3600)
    expect(odd.expires).toBeGreaterThanOrEqual(before + 3600)
    portal.mutateTokenResponses({ set: { expires_in: null, user_id: -3 } })
    expect(await exchange(portal)).toMatchObject({ expiresIn: 3600, userId: 0 })
  })

  it('values that are no whole number read as absent; a lifetime of 0 is a pair dead at once', async () => {
    const portal = await rig.portal()
    portal.mutateTokenResponses({ set: { expires_in: '', user_id: true } })
    expect(await exchange(portal)).toMatchObject({ expiresIn: 3600, userId: 0 })
    portal.mutateTokenResponses({ remove: ['expires'], set: { expires_in: 0 } })
    const before = Math.floor(Date.now() / 1000)
    const dead = await exchange(portal)
    expect(dead.expiresIn).toBe(0)
    expect(dead.expires).toBeGreaterThanOrEqual(before)
    expect(dead.expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
  })

  it("an unusable answer's refusal does not show the answer's own tokens", async () => {
    const portal = await rig.portal()
    // A server that puts a token in the wrong field: the field's error would quote it.
    portal.mutateTokenResponses({
      set: { access_token: 'answer-access-token-1', status: 'answer-access-token-1' },
    })
    const access = await failure(exchange(portal))
    expect(access.code).toBe(SdkErrorCode.InvalidResponse)
    expect(access.message).toContain('authOptions.status')
    expect(access.message).not.toContain('answer-access-token-1')
    portal.mutateTokenResponses({
      set: { refresh_token: 'answer-refresh-token-1', status: 'answer-refresh-token-1' },
    })
    expect((await failure(exchange(portal))).message).not.toContain('answer-refresh-token-1')
  })

  it('an answer without a usable pair is refused as an invalid response, saying why', async () => {
    const portal = await rig.portal()
    portal.mutateTokenResponses({ set: { client_endpoint: 'not a url' } })
    const odd = await failure(exchange(portal))
    expect(odd.code).toBe(SdkErrorCode.InvalidResponse)
    expect(odd.message.startsWith(UNUSABLE)).toBe(true)
    expect(odd.message.length).toBeGreaterThan(UNUSABLE.length)
    portal.mutateTokenResponses({ remove: ['member_id'] })
    const missing = await failure(exchange(portal))
    expect(missing.code).toBe(SdkErrorCode.InvalidResponse)
    expect(missing.message).toContain(UNUSABLE)
  })

  it("an OAuth error is the caller's code, with its description when there is one", async () => {
    const portal = await rig.portal()
    const json = 'application/json'
    portal.failTokenRequests({ status: 400, body: '{"error":"expired_token"}', contentType: json })
    expect(await failure(exchange(portal))).toMatchObject({
      code: 'expired_token',
      message: 'exchangeAuthorizationCode: the OAuth server refused the code: expired_token, HTTP 400',
    })
    // An empty error, or a description that is no text, is no OAuth error or no description.
    portal.failTokenRequests({ status: 400, body: '{"error":""}', contentType: json })
    expect(await failure(exchange(portal))).toMatchObject({
      code: SdkErrorCode.InvalidResponse,
      message:
        'exchangeAuthorizationCode: the OAuth server answered HTTP 400 without a pair or an OAuth error',
    })
    portal.failTokenRequests({
      status: 400,
      body: '{"error":"invalid_grant","error_description":5}',
      contentType: json,
    })
    expect(await failure(exchange(portal))).toMatchObject({
      code: 'invalid_grant',
      message: 'exchangeAuthorizationCode: the OAuth server refused the code: invalid_grant, HTTP 400',
    })
    portal.failTokenRequests({
      status: 401,
      body: '{"error":"invalid_client","error_description":"Wrong client"}',
      contentType: json,
    })
    expect(await failure(exchange(portal))).toMatchObject({
      code: 'invalid_client',
      message:
        'exchangeAuthorizationCode: the OAuth server refused the code: invalid_client (Wrong client), HTTP 401',
    })
  })

  it('an answer with neither a pair nor an OAuth error is an invalid response naming its status', async () => {
    const portal = await rig.portal()
    const cases: Array<[number, string, string]> = [
      [502, '<html>Bad gateway</html>', 'text/html'],
      [200, 'maintenance', 'text/plain'],
      [500, '{"result":"fine"}', 'application/json'],
      [200, '["a"]', 'application/json'],
    ]
    for (const [status, body, contentType] of cases) {
      portal.failTokenRequests({ status, body, contentType })
      expect(await failure(exchange(portal))).toMatchObject({
        code: SdkErrorCode.InvalidResponse,
        message: `exchangeAuthorizationCode: the OAuth server answered HTTP ${status} without a pair or an OAuth error`,
        request: { method: 'oauth/token' },
      })
    }
  })
})

describe('exchangeAuthorizationCode without an answer', () => {
  it('an OAuth server that does not answer within the timeout is a request timeout', async () => {
    const portal = await rig.portal()
    portal.holdRequests(1, { server: 'oauth' })
    const late = await failure(exchange(portal, { timeout: 200 }))
    portal.releaseHeldRequests()
    expect(late).toMatchObject({
      code: SdkErrorCode.RequestTimeout,
      message: 'exchangeAuthorizationCode: the OAuth server did not answer in time',
      request: { method: 'oauth/token' },
    })
  })

  it('an OAuth server that cannot be reached is a network error', async () => {
    const portal = await rig.portal()
    // A loopback port nothing listens on.
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const origin = `http://127.0.0.1:${port}`
    expect(
      await failure(exchange(portal, { serverEndpoint: `${origin}/rest/`, oauthServers: [origin] })),
    ).toMatchObject({
      code: SdkErrorCode.NetworkError,
      message: 'exchangeAuthorizationCode: connection to the OAuth server failed',
      request: { method: 'oauth/token' },
    })
  })
})

describe('exchangeAuthorizationCode options', () => {
  it('sends through the adapter given, and refuses a request that is no object, a bad timeout or adapter', async () => {
    const portal = await rig.portal()
    const sent: string[] = []
    const adapter: FetchLike = (input, init) => {
      sent.push(String(input instanceof Request ? input.url : input))
      return fetch(input, init)
    }
    expect((await exchange(portal, { adapter, timeout: 5_000 })).memberId).toBe(portal.memberId)
    expect(sent).toEqual([`${new URL(portal.serverEndpoint).origin}/oauth/token/`])
    const refusals: Array<[unknown, string]> = [
      [null, 'exchangeAuthorizationCode: takes an object { code, oAuthSecret, applicationToken }'],
      ['code', 'exchangeAuthorizationCode: takes an object { code, oAuthSecret, applicationToken }'],
    ]
    for (const [request, message] of refusals) {
      expect(await failure(exchangeAuthorizationCode(request as never))).toMatchObject({
        code: SdkErrorCode.InvalidArgument,
        message,
      })
    }
    const argumentRefusals: Array<[Record<string, unknown>, string]> = [
      [{ code: '' }, 'exchangeAuthorizationCode: code must be a non-empty string'],
      [{ code: 5 }, 'exchangeAuthorizationCode: code must be a non-empty string'],
      [
        { applicationToken: '' },
        'exchangeAuthorizationCode: applicationToken must be a non-empty string (APPLICATION_TOKEN of the install page, or the event)',
      ],
      [
        { applicationToken: 5 },
        'exchangeAuthorizationCode: applicationToken must be a non-empty string (APPLICATION_TOKEN of the install page, or the event)',
      ],
    ]
    for (const [change, message] of argumentRefusals) {
      expect(await failure(exchange(portal, change))).toMatchObject({
        code: SdkErrorCode.InvalidArgument,
        message,
      })
    }
    expect((await failure(exchange(portal, { serverEndpoint: 'https://oauth.example/' }))).message).toContain(
      'serverEndpoint',
    )
    expect(
      (await failure(exchange(portal, { serverEndpoint: 'https://oauth.untrusted.example/rest/' }))).message,
    ).toContain('exchangeAuthorizationCode: serverEndpoint')
    expect((await failure(exchange(portal, { proxy: 'ftp://proxy.example' }))).message).toContain(
      'exchangeAuthorizationCode: proxy',
    )
    expect(await failure(exchange(portal, { adapter: 'fetch' }))).toMatchObject({
      code: SdkErrorCode.InvalidArgument,
      message: 'exchangeAuthorizationCode: adapter must be a fetch-compatible function',
    })
    for (const timeout of [0, 600_001, 1.5]) {
      expect(await failure(exchange(portal, { timeout }))).toMatchObject({
        code: SdkErrorCode.InvalidArgument,
        message: expect.stringMatching(
          /^exchangeAuthorizationCode: timeout must be an integer from 1 to 600000 ms/,
        ),
      })
    }
  })
})
