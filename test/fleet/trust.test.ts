import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { exchangeAuthorizationCode, MemoryStore, PortalOAuth, SdkErrorCode } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator, startPortalEmulators } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type AttackerServer, reached, startAttackerServer } from './attacker-server.js'
import { authField, createFleetRig } from './fleet-rig.js'

const rig = createFleetRig()
const attackers: AttackerServer[] = []
afterEach(async () => {
  await rig.close()
  await Promise.all(attackers.splice(0).map((attacker) => attacker.close()))
})

/** An attacker whose server confirms anything for `memberId` and hands out pairs: whoever asks it is fooled. */
async function attackerFor(portal: PortalEmulator, memberId = portal.memberId): Promise<AttackerServer> {
  const attacker = await startAttackerServer({ clientId: portal.clientId, memberId, clientEndpoint: '' })
  attackers.push(attacker)
  return attacker
}

/** The portal's credentials, and a working pair of it that names the attacker's server. */
function pairNaming(portal: PortalEmulator, attacker: AttackerServer) {
  const secret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
  return { secret, pair: { ...portal.issueAuthParams(), serverEndpoint: attacker.restRoot } }
}

/** Nothing the application keeps secret reached the attacker. */
function expectNothingStolen(attacker: AttackerServer, portal: PortalEmulator): void {
  expect(attacker.received).toEqual([])
  expect(reached(attacker, portal.clientSecret)).toBe(false)
}

/** The origins the environment trusts now (read afresh: emulators change it as they start and close). */
function trustedNow(): string[] {
  return (process.env.PORTAL_OAUTH_TRUSTED_SERVERS ?? '').split(',')
}

describe('a forged ONAPPINSTALL', () => {
  it("for a portal never seen, naming the sender's host, is refused: nothing stored, nothing sent to the sender", async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const stranger = 'e'.repeat(32)
    const attacker = await attackerFor(portal, stranger)
    const forged = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    forged.set('auth[member_id]', stranger)
    forged.set('auth[access_token]', 'made-up-access-token')
    forged.set('auth[server_endpoint]', attacker.restRoot)
    forged.set('auth[client_endpoint]', attacker.restRoot)
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({
      code: SdkErrorCode.UntrustedOAuthServer,
      message: expect.stringContaining('options.oauthServers'),
    })
    expect(await fleet.store.load(stranger)).toBeNull()
    await expect(fleet.get(stranger)).rejects.toMatchObject({ code: SdkErrorCode.PortalNotInstalled })
    expectNothingStolen(attacker, portal)
  })

  it('naming the trusted OAuth server with a made-up access token is refused with JSSDK_EVENT_NOT_PROVED', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const attacker = await attackerFor(portal, 'e'.repeat(32))
    const forged = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    forged.set('auth[member_id]', 'e'.repeat(32))
    forged.set('auth[access_token]', 'made-up-access-token')
    forged.set('auth[client_endpoint]', attacker.restRoot)
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    expect(await fleet.store.load('e'.repeat(32))).toBeNull()
    // The token was checked at the OAuth server, which refused it.
    const check = portal.log.entries.filter((entry) => entry.server === 'oauth').at(-1)
    expect(check).toMatchObject({ path: '/rest/app.info/', status: 401 })
    expectNothingStolen(attacker, portal)
  })

  it("with another portal's genuine access token does not prove an install of this portal", async () => {
    const victim = await rig.portal()
    // The sender installed the application on a portal of its own: its tokens are genuine, for its own member id.
    const own = await rig.portal()
    const fleet = rig.fleet(victim)
    const forged = new URLSearchParams(own.installEvent('ONAPPINSTALL'))
    forged.set('auth[member_id]', victim.memberId)
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
      message: expect.stringContaining('another portal'),
    })
    expect(await fleet.store.load(victim.memberId)).toBeNull()
  })

  it('repeated with the stored application token, a token that works nowhere and another server_endpoint is refused', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = await fleet.store.load(portal.memberId)
    const attacker = await attackerFor(portal)
    rig.later()
    const forged = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    forged.set('auth[access_token]', 'works-nowhere')
    forged.set('auth[server_endpoint]', attacker.restRoot)
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({ code: SdkErrorCode.UntrustedOAuthServer })
    // The same with the trusted server named: the token proves nothing there.
    forged.set('auth[server_endpoint]', portal.serverEndpoint)
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
    // The next refresh goes where it always went.
    await (await fleet.get(portal.memberId)).auth.refreshAuth()
    expect(portal.log.refreshRequests()).toHaveLength(1)
    expectNothingStolen(attacker, portal)
  })

  it('with a working access token of the portal, a new application token and another server_endpoint is refused', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = await fleet.store.load(portal.memberId)
    const attacker = await attackerFor(portal)
    rig.later()
    const forged = new URLSearchParams(
      portal.installEvent('ONAPPINSTALL', { applicationToken: 'a'.repeat(32) }),
    )
    forged.set('auth[server_endpoint]', attacker.restRoot)
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({ code: SdkErrorCode.UntrustedOAuthServer })
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
    await (await fleet.get(portal.memberId)).auth.refreshAuth()
    expectNothingStolen(attacker, portal)
  })
})

describe('a pair naming an OAuth server outside oauthServers', () => {
  it('is refused at construction and by setAuthOptions, with an error naming the option', async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const { secret, pair } = pairNaming(portal, attacker)
    expect(() => new PortalOAuth(pair, secret)).toThrow(
      expect.objectContaining({
        code: SdkErrorCode.UntrustedOAuthServer,
        message: expect.stringMatching(/authOptions\.serverEndpoint.*options\.oauthServers/),
      }),
    )
    const client = new PortalOAuth(portal.issueAuthParams(), secret)
    expect(() => client.setAuthOptions(pair)).toThrow(
      expect.objectContaining({ code: SdkErrorCode.UntrustedOAuthServer }),
    )
    await client.destroy()
    expectNothingStolen(attacker, portal)
  })

  it('in a store row: fleet.get() refuses it, and an instance that adopts it refuses to refresh', async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const store = new MemoryStore()
    const logger = createMemoryLogger()
    const secret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
    const client = new PortalOAuth(portal.issueAuthParams(), secret, { store, logger })
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    // A row written by an older version, a forged one or a typo: newer, working tokens, another OAuth server.
    rig.later(60_000)
    await store.replace({ ...portal.issueAuthParams(), serverEndpoint: attacker.restRoot })
    await expect(rig.fleet(portal, { store }).get(portal.memberId)).rejects.toMatchObject({
      code: SdkErrorCode.UntrustedOAuthServer,
    })
    // The instance takes the newer pair (its access token works) and says that its refresh will be refused.
    await client.auth.refreshAuth()
    expect(logger.lines.some((line) => line.level === 'error' && line.message.includes('oauthServers'))).toBe(
      true,
    )
    await expect(client.auth.refreshAuth()).rejects.toMatchObject({
      code: SdkErrorCode.UntrustedOAuthServer,
      message: expect.stringContaining('options.oauthServers'),
    })
    await client.destroy()
    expect(portal.log.refreshRequests()).toHaveLength(0)
    expectNothingStolen(attacker, portal)
  })

  it('in a store row, an address that is no http(s) URL: the refresh is refused without showing it', async () => {
    const portal = await rig.portal()
    const store = new MemoryStore()
    const secret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
    const client = new PortalOAuth(portal.issueAuthParams(), secret, { store, logger: createMemoryLogger() })
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    rig.later(60_000)
    await store.replace({ ...portal.issueAuthParams(), serverEndpoint: 'ftp://oauth.example.test/rest/' })
    await client.auth.refreshAuth()
    await expect(client.auth.refreshAuth()).rejects.toMatchObject({
      code: SdkErrorCode.UntrustedOAuthServer,
      message: expect.stringContaining(
        "the pair's serverEndpoint names the OAuth server an address that is no http(s) URL, which is not trusted",
      ),
    })
    await client.destroy()
    expect(portal.log.refreshRequests()).toHaveLength(0)
  })

  it('in a refresh answer: the trusted server is kept, and the next refresh goes there', async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const logger = createMemoryLogger()
    const client = new PortalOAuth(
      portal.issueAuthParams(),
      { clientId: portal.clientId, clientSecret: portal.clientSecret },
      { logger },
    )
    portal.mutateTokenResponses({ set: { server_endpoint: attacker.restRoot } })
    await client.auth.refreshAuth()
    expect(client.auth.getParams().serverEndpoint).toBe(portal.serverEndpoint)
    expect(logger.lines.some((line) => line.message.includes('server_endpoint (untrusted server'))).toBe(true)
    await client.auth.refreshAuth()
    expect(portal.log.refreshRequests()).toHaveLength(2)
    await client.destroy()
    expectNothingStolen(attacker, portal)
  })
})

describe('an authorization code', () => {
  it("is never sent to a server outside oauthServers, nor is the pair's server taken from an untrusted answer", async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const oAuthSecret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
    const code = portal.issueAuthorizationCode()
    await expect(
      exchangeAuthorizationCode({
        code,
        oAuthSecret,
        applicationToken: portal.applicationToken,
        serverEndpoint: attacker.restRoot,
      }),
    ).rejects.toMatchObject({
      code: SdkErrorCode.UntrustedOAuthServer,
      message: expect.stringContaining('oauthServers'),
    })
    expectNothingStolen(attacker, portal)
    // The trusted server's answer names the attacker's: the pair keeps the server that was asked.
    portal.mutateTokenResponses({ set: { server_endpoint: attacker.restRoot } })
    const params = await exchangeAuthorizationCode({
      code,
      oAuthSecret,
      applicationToken: portal.applicationToken,
      serverEndpoint: portal.serverEndpoint,
    })
    expect(params.serverEndpoint).toBe(portal.serverEndpoint)
    expectNothingStolen(attacker, portal)
  })
})

describe('oauthServers', () => {
  it("given, trusts exactly those origins (and the environment's); a malformed entry is refused naming it", async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const { secret, pair } = pairNaming(portal, attacker)
    const trusting = new PortalOAuth(pair, secret, { oauthServers: [attacker.origin] })
    await trusting.destroy()
    expect(() => new PortalOAuth(pair, secret, { oauthServers: ['https://oauth.bitrix.info'] })).toThrow(
      expect.objectContaining({ code: SdkErrorCode.UntrustedOAuthServer }),
    )
    // The emulator put its own origin there; an operator adds one the same way.
    const set = process.env.PORTAL_OAUTH_TRUSTED_SERVERS
    expect(set?.split(',')).toContain(portal.oauthServer)
    process.env.PORTAL_OAUTH_TRUSTED_SERVERS = `${set}, https://oauth.example.test, ${attacker.origin}/`
    try {
      await new PortalOAuth(pair, secret).destroy()
    } finally {
      process.env.PORTAL_OAUTH_TRUSTED_SERVERS = set
    }
    for (const entry of ['oauth.bitrix.info', { toString: () => 'https://oauth.bitrix.info' }]) {
      expect(() => new PortalOAuth(pair, secret, { oauthServers: [entry as string] })).toThrow(
        expect.objectContaining({
          code: SdkErrorCode.InvalidArgument,
          message: expect.stringContaining(
            'options.oauthServers[0] must be an absolute http(s) URL such as https://oauth.bitrix.info',
          ),
        }),
      )
    }
    expect(
      () =>
        new PortalOAuth(pair, secret, {
          oauthServers: [attacker.origin, 'https://user:pw@oauth.bitrix.info'],
        }),
    ).toThrow(expect.objectContaining({ message: expect.stringContaining('options.oauthServers[1]') }))
    expect(
      () => new PortalOAuth(pair, secret, { oauthServers: attacker.origin as unknown as string[] }),
    ).toThrow(
      expect.objectContaining({
        code: SdkErrorCode.InvalidArgument,
        message: expect.stringMatching(
          /options\.oauthServers.*must be an array of OAuth server origins such as https:\/\/oauth\.bitrix\.info/,
        ),
      }),
    )
    expectNothingStolen(attacker, portal)
  })

  it('an array changed after a client took it is read again by the next client; a frozen one is the same list', async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const { secret, pair } = pairNaming(portal, attacker)
    const untrusted = expect.objectContaining({ code: SdkErrorCode.UntrustedOAuthServer })
    const servers = ['https://oauth.bitrix.info']
    expect(() => new PortalOAuth(pair, secret, { oauthServers: servers })).toThrow(untrusted)
    servers.push(attacker.origin)
    await new PortalOAuth(pair, secret, { oauthServers: servers }).destroy()
    servers.pop()
    expect(() => new PortalOAuth(pair, secret, { oauthServers: servers })).toThrow(untrusted)
    const frozen = Object.freeze([attacker.origin])
    await new PortalOAuth(pair, secret, { oauthServers: frozen }).destroy()
    await new PortalOAuth(pair, secret, { oauthServers: frozen }).destroy()
    expectNothingStolen(attacker, portal)
  })

  it('a refusal names the field, the origin alone, the option and every origin trusted now, each once', async () => {
    const portal = await rig.portal()
    const attacker = await attackerFor(portal)
    const { secret, pair } = pairNaming(portal, attacker)
    const set = process.env.PORTAL_OAUTH_TRUSTED_SERVERS
    const refusal = (field: string, trusted: string) =>
      expect.objectContaining({
        code: SdkErrorCode.UntrustedOAuthServer,
        message:
          `${field} names the OAuth server ${attacker.origin}, which is not trusted: the client secret and refresh ` +
          `tokens go only to options.oauthServers (now ${trusted}) or PORTAL_OAUTH_TRUSTED_SERVERS`,
      })
    // The environment's entries are trimmed (a no-break space too) and cut to their origin; a malformed one trusts
    // nothing and is not shown.
    process.env.PORTAL_OAUTH_TRUSTED_SERVERS =
      '\u00a0https://oauth.example.test/rest/ ,not a url,ftp://files.example.test, http://127.0.0.1:1,http://127.0.0.1:1/'
    try {
      expect(
        () =>
          new PortalOAuth(pair, secret, {
            oauthServers: ['https://oauth.other.test/some/path', 'http://127.0.0.1:1'],
          }),
      ).toThrow(
        refusal(
          'PortalOAuth: authOptions.serverEndpoint',
          'https://oauth.other.test, http://127.0.0.1:1, https://oauth.example.test',
        ),
      )
      process.env.PORTAL_OAUTH_TRUSTED_SERVERS = ''
      const fleet = rig.fleet(portal, { oauthServers: [] })
      await expect(fleet.install(pair)).rejects.toEqual(
        refusal('PortalFleet.install: params.serverEndpoint', 'none'),
      )
    } finally {
      restoreTrustedServers(set)
    }
    expectNothingStolen(attacker, portal)
  })

  it("an emulator's OAuth server is trusted while it runs, and no longer once closed", async () => {
    const portal = await rig.portal()
    const secret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
    const pair = portal.issueAuthParams()
    await new PortalOAuth(pair, secret).destroy()
    await portal.close()
    expect(() => new PortalOAuth(pair, secret)).toThrow(
      expect.objectContaining({ code: SdkErrorCode.UntrustedOAuthServer }),
    )
  })
})

describe("an emulator's trust in PORTAL_OAUTH_TRUSTED_SERVERS", () => {
  it('is held by every portal of a farm: their OAuth server stays trusted until the last one closes', async () => {
    const set = process.env.PORTAL_OAUTH_TRUSTED_SERVERS
    // Unset at first: the last emulator to close leaves it unset, not empty.
    delete process.env.PORTAL_OAUTH_TRUSTED_SERVERS
    const farm = await startPortalEmulators(2)
    const alone = await startPortalEmulator()
    try {
      const [first, second] = farm.emulators as [PortalEmulator, PortalEmulator]
      const secret = { clientId: second.clientId, clientSecret: second.clientSecret }
      await first.close()
      expect(trustedNow()).toContain(farm.oauthServer)
      await new PortalOAuth(second.issueAuthParams(), secret).destroy()
      const pair = second.issueAuthParams()
      await second.close()
      expect(trustedNow()).not.toContain(farm.oauthServer)
      expect(() => new PortalOAuth(pair, secret)).toThrow(
        expect.objectContaining({ code: SdkErrorCode.UntrustedOAuthServer }),
      )
      // Another emulator's origin stays.
      await new PortalOAuth(alone.issueAuthParams(), {
        clientId: alone.clientId,
        clientSecret: alone.clientSecret,
      }).destroy()
      await alone.close()
      expect('PORTAL_OAUTH_TRUSTED_SERVERS' in process.env).toBe(false)
    } finally {
      await farm.close()
      await alone.close()
      restoreTrustedServers(set)
    }
  })

  it('leaves an origin the operator put there: it stays trusted after the emulator on it closes', async () => {
    const oauthPort = await freePort()
    const origin = `http://127.0.0.1:${oauthPort}`
    const set = process.env.PORTAL_OAUTH_TRUSTED_SERVERS
    process.env.PORTAL_OAUTH_TRUSTED_SERVERS = set ? `${set},${origin}` : origin
    try {
      const portal = await rig.portal({ oauthPort })
      expect(portal.oauthServer).toBe(origin)
      const pair = portal.issueAuthParams()
      await portal.close()
      expect(process.env.PORTAL_OAUTH_TRUSTED_SERVERS.split(',')).toContain(origin)
      await new PortalOAuth(pair, { clientId: portal.clientId, clientSecret: portal.clientSecret }).destroy()
    } finally {
      restoreTrustedServers(set)
    }
  })
})

/** Puts back the environment variable as a test found it. */
function restoreTrustedServers(set: string | undefined): void {
  if (set === undefined) delete process.env.PORTAL_OAUTH_TRUSTED_SERVERS
  else process.env.PORTAL_OAUTH_TRUSTED_SERVERS = set
}

/** A loopback port no one listens on now. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('replays', () => {
  it('an older ONAPPUPDATE replayed after the pair rotated changes nothing; the next refresh works', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    rig.later()
    const update = portal.installEvent('ONAPPUPDATE')
    expect(await fleet.handleEvent(update)).toMatchObject({ changed: true })
    rig.later()
    const client = await fleet.get(portal.memberId)
    await client.auth.refreshAuth()
    const rotated = await fleet.store.load(portal.memberId)
    expect(rotated?.refreshToken).not.toBe(authField(update, 'refresh_token'))
    expect(await fleet.handleEvent(update)).toMatchObject({ event: 'ONAPPUPDATE', changed: false })
    expect(await fleet.store.load(portal.memberId)).toEqual(rotated)
    expect(client.auth.getParams().refreshToken).toBe(rotated?.refreshToken)
    await client.auth.refreshAuth()
    expect(portal.log.rejected('invalid_grant')).toEqual([])
  })

  it('a replayed install changes nothing either', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const install = portal.installEvent('ONAPPINSTALL')
    expect(await fleet.handleEvent(install)).toMatchObject({ changed: true })
    const stored = await fleet.store.load(portal.memberId)
    expect(await fleet.handleEvent(install)).toMatchObject({ changed: false })
    expect(await fleet.store.load(portal.memberId)).toEqual(stored)
  })
})

describe('the refusal of an untrusted server_endpoint in an event', () => {
  it('names the field', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const forged = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    forged.set('auth[server_endpoint]', 'https://oauth.untrusted.example/rest/')
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject({
      code: SdkErrorCode.UntrustedOAuthServer,
      message: expect.stringMatching(
        /^handleEvent: auth\[server_endpoint\] names the OAuth server https:\/\/oauth\.untrusted\.example, which is not trusted/,
      ),
    })
  })
})
