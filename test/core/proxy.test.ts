import { createServer } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  exchangeAuthorizationCode,
  PortalFleet,
  PortalHook,
  PortalOAuth,
  SdkErrorCode,
} from '../../src/index.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { type ForwardProxy, startForwardProxy } from '../forward-proxy.js'
import { type Rig, startRig } from '../helpers.js'

const PROXY_VARIABLES = [
  'NODE_USE_ENV_PROXY',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
]
const saved = new Map<string, string | undefined>()
let proxy: ForwardProxy
let rig: Rig | undefined

beforeEach(async () => {
  for (const name of PROXY_VARIABLES) {
    saved.set(name, process.env[name])
    delete process.env[name]
  }
  proxy = await startForwardProxy()
})
afterEach(async () => {
  await rig?.close()
  rig = undefined
  await proxy.close()
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

/** One v2 call, one v3 call and one refresh; the hosts the proxy saw. */
async function callAndRefresh(current: Rig): Promise<string[]> {
  expect((await current.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  expect(
    (await current.portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })).status,
  ).toBe(200)
  await current.portal.auth.refreshAuth()
  expect(current.emulator.log.refreshRequests()).toHaveLength(1)
  return proxy.seen.map((request) => request.target)
}

/** A port of 127.0.0.1 nothing listens on (taken, then given back). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return typeof address === 'object' && address !== null ? address.port : 0
}

function hostOf(endpoint: string): string {
  return new URL(endpoint).host
}

describe('httpOptions.proxy', () => {
  it('sends REST v2, v3 and the refresh through the proxy, without any environment variable', async () => {
    rig = await startRig({ client: { httpOptions: { proxy: proxy.url } } })
    const hosts = await callAndRefresh(rig)
    expect(hosts).toContain(hostOf(rig.emulator.clientEndpoint))
    expect(hosts).toContain(hostOf(rig.emulator.serverEndpoint))
  })

  it('sends the credentials of the proxy URL as Proxy-Authorization, and never the portal its tokens in the clear', async () => {
    const withCredentials = new URL(proxy.url)
    withCredentials.username = 'app'
    withCredentials.password = 's3cret'
    rig = await startRig({ client: { httpOptions: { proxy: withCredentials } } })
    await callAndRefresh(rig)
    expect(proxy.seen.length).toBeGreaterThan(0)
    for (const request of proxy.seen)
      expect(request.authorization).toBe(`Basic ${Buffer.from('app:s3cret').toString('base64')}`)
  })

  it('refuses a URL that is not http(s), or given with a custom adapter, naming the field and not the URL', async () => {
    const emulator = await startPortalEmulator()
    try {
      const build = (httpOptions: object) =>
        new PortalOAuth(
          emulator.issueAuthParams(),
          { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
          {
            httpOptions,
          },
        )
      for (const bad of ['socks5://user:pw-9@127.0.0.1:1080', 'not a url', 42]) {
        let error: unknown
        try {
          build({ proxy: bad })
        } catch (caught) {
          error = caught
        }
        expect(error).toMatchObject({
          code: SdkErrorCode.InvalidArgument,
          message: expect.stringContaining('httpOptions.proxy'),
        })
        expect(String((error as Error).message)).not.toContain('pw-9')
      }
      expect(() => build({ proxy: proxy.url, adapter: fetch })).toThrow(
        /httpOptions\.proxy applies to the default adapter only/,
      )
    } finally {
      await emulator.close()
    }
  })
})

describe('NODE_USE_ENV_PROXY=1 with HTTP_PROXY / NO_PROXY', () => {
  it.each(['1', 'true'])(
    'NODE_USE_ENV_PROXY=%s: sends every request through the proxy the environment names',
    async (flag) => {
      process.env.NODE_USE_ENV_PROXY = flag
      process.env.HTTP_PROXY = proxy.url
      rig = await startRig()
      const hosts = await callAndRefresh(rig)
      expect(hosts).toContain(hostOf(rig.emulator.clientEndpoint))
      expect(hosts).toContain(hostOf(rig.emulator.serverEndpoint))
    },
  )

  it('goes straight to a host NO_PROXY names', async () => {
    process.env.NODE_USE_ENV_PROXY = '1'
    process.env.HTTP_PROXY = proxy.url
    process.env.NO_PROXY = '127.0.0.1'
    rig = await startRig()
    await callAndRefresh(rig)
    expect(proxy.seen).toEqual([])
  })

  it('NO_PROXY matches the host as written: localhost does not cover an emulator on 127.0.0.1', async () => {
    process.env.NODE_USE_ENV_PROXY = '1'
    process.env.HTTP_PROXY = proxy.url
    process.env.NO_PROXY = 'localhost'
    rig = await startRig()
    await callAndRefresh(rig)
    expect(proxy.seen.map((request) => request.target)).toContain(hostOf(rig.emulator.clientEndpoint))
    await rig.close()
    proxy.seen.length = 0
    process.env.NO_PROXY = 'localhost,127.0.0.1'
    rig = await startRig()
    await callAndRefresh(rig)
    expect(proxy.seen).toEqual([])
  })

  it("HTTP_PROXY serves http:// endpoints only; an https:// one goes through HTTPS_PROXY (Node's rule), else straight", async () => {
    process.env.NODE_USE_ENV_PROXY = '1'
    process.env.HTTP_PROXY = proxy.url
    // Nothing listens there: the call fails either way, and what reached the proxy is the question.
    const closedPort = await freePort()
    const target = `127.0.0.1:${closedPort}`
    const attempt = async () => {
      const hook = PortalHook.fromWebhookUrl(`https://${target}/rest/1/secret123/`, {
        restrictionParams: { maxRetries: 0, retryOnNetworkError: false },
      })
      try {
        const result = await hook.actions.v2.call.make({ method: 'profile' }).catch((error: unknown) => error)
        expect(result).toBeInstanceOf(Error)
      } finally {
        await hook.destroy()
      }
    }
    await attempt()
    expect(proxy.seen).toEqual([])
    process.env.HTTPS_PROXY = proxy.url
    await attempt()
    expect(proxy.seen.map(({ kind, target: to }) => ({ kind, to }))).toEqual([
      { kind: 'connect', to: target },
    ])
  })

  it("without NODE_USE_ENV_PROXY the proxy variables are not read (Node's own convention)", async () => {
    process.env.HTTP_PROXY = proxy.url
    process.env.HTTPS_PROXY = proxy.url
    rig = await startRig()
    await callAndRefresh(rig)
    expect(proxy.seen).toEqual([])
  })
})

describe('the requests outside a client', () => {
  it('exchangeAuthorizationCode goes through its proxy option', async () => {
    const emulator = await startPortalEmulator()
    try {
      const params = await exchangeAuthorizationCode({
        code: emulator.issueAuthorizationCode(),
        oAuthSecret: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
        applicationToken: emulator.applicationToken,
        serverEndpoint: emulator.serverEndpoint,
        proxy: proxy.url,
      })
      expect(params.memberId).toBe(emulator.memberId)
      expect(proxy.seen.map((request) => request.target)).toEqual([hostOf(emulator.serverEndpoint)])
    } finally {
      await emulator.close()
    }
  })

  it("a fleet's proof of an install goes through the fleet's proxy", async () => {
    const emulator = await startPortalEmulator()
    const fleet = new PortalFleet({
      oAuthSecret: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      httpOptions: { proxy: proxy.url },
    })
    try {
      await fleet.handleEvent(emulator.installEvent('ONAPPINSTALL'))
      // The token at the OAuth server, then its user at the portal.
      expect(proxy.seen.map((request) => request.target)).toEqual([
        hostOf(emulator.serverEndpoint),
        hostOf(emulator.clientEndpoint),
      ])
      const client = await fleet.get(emulator.memberId)
      expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      expect(proxy.seen.map((request) => request.target)).toEqual([
        hostOf(emulator.serverEndpoint),
        hostOf(emulator.clientEndpoint),
        hostOf(emulator.clientEndpoint),
      ])
    } finally {
      await fleet.destroy()
      await emulator.close()
    }
  })
})
