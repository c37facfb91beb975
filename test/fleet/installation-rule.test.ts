import { afterEach, describe, expect, it } from 'vitest'
import {
  type HandlerRefreshAuth,
  MemoryStore,
  type PortalOAuthParams,
  SdkErrorCode,
} from '../../src/index.js'
import { EmulatorRestError, type PortalEmulator } from '../../src/testing/index.js'
import { createFleetRig } from './fleet-rig.js'

// Who may change an installation (src/trust/installation-rule.ts, docs/security.md): an install or update only when
// the portal says the token's user administers it, and a refresh answer never moves a pair onto another portal.

const rig = createFleetRig()
afterEach(() => rig.close())

/** A user of the portal who is no administrator, as the portal's page knows them. */
const PAGE_USER = 7

/**
 * The install or update a user of the portal can post: the genuine event's shape, with the pair the application's
 * page gave them (`BX24.getAuth()`: access and refresh token, both genuine) and an application token of their choice.
 */
function postedByPageUser(
  portal: PortalEmulator,
  event: 'ONAPPINSTALL' | 'ONAPPUPDATE',
  applicationToken: string,
): URLSearchParams {
  const page = portal.issueAuthParams({ userId: PAGE_USER })
  const body = new URLSearchParams(portal.installEvent(event, { applicationToken }))
  body.set('auth[access_token]', page.accessToken)
  body.set('auth[refresh_token]', page.refreshToken)
  body.set('auth[expires]', String(page.expires))
  body.set('auth[user_id]', String(PAGE_USER))
  return body
}

/** The event `event` of `portal` carrying `applicationToken`: what a holder of that token can send. */
function withApplicationToken(
  portal: PortalEmulator,
  event: string,
  applicationToken: string,
): URLSearchParams {
  const body = new URLSearchParams(portal.installEvent('ONAPPUNINSTALL'))
  body.set('event', event)
  body.set('auth[application_token]', applicationToken)
  return body
}

describe("a portal user's token", () => {
  it('posting ONAPPINSTALL with their own application token changes nothing; the genuine events still work', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = await fleet.store.load(portal.memberId)
    rig.later()
    const chosen = 'a'.repeat(32)
    await expect(fleet.handleEvent(postedByPageUser(portal, 'ONAPPINSTALL', chosen))).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
      message: `handleEvent: portal ${portal.memberId}: the token's user is not an administrator of the portal; nothing was changed`,
    })
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
    // Their application token opens nothing: an event or an uninstall carrying it is refused.
    for (const event of ['ONCRMDEALADD', 'ONAPPUNINSTALL'])
      await expect(fleet.handleEvent(withApplicationToken(portal, event, chosen))).rejects.toMatchObject({
        code: SdkErrorCode.ApplicationTokenMismatch,
      })
    // The portal's own events still pass, and its update is taken.
    const genuine = await fleet.handleEvent(
      withApplicationToken(portal, 'ONCRMDEALADD', portal.applicationToken),
    )
    expect(genuine.changed).toBe(false)
    rig.later()
    expect((await fleet.handleEvent(portal.installEvent('ONAPPUPDATE'))).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toMatchObject({
      applicationToken: portal.applicationToken,
    })
  })

  it('posting ONAPPUPDATE with the stored application token (the page shows it too) keeps the stored pair', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = await fleet.store.load(portal.memberId)
    rig.later()
    await expect(
      fleet.handleEvent(postedByPageUser(portal, 'ONAPPUPDATE', portal.applicationToken)),
    ).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
      message: expect.stringContaining('administrator'),
    })
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
    // The stored pair still acts as the installing administrator.
    const profile = await (await fleet.get(portal.memberId)).actions.v2.call.make({ method: 'profile' })
    expect(profile.getData()?.result).toMatchObject({ ID: '1', ADMIN: true })
  })

  it('installs nothing on a portal never seen', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await expect(
      fleet.handleEvent(postedByPageUser(portal, 'ONAPPINSTALL', portal.applicationToken)),
    ).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('of a user the portal made an administrator reinstalls, with a new application token', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    portal.setAdmin(true, PAGE_USER)
    rig.later()
    const reinstall = portal.installEvent('ONAPPINSTALL', {
      userId: PAGE_USER,
      applicationToken: 'b'.repeat(32),
    })
    expect((await fleet.handleEvent(reinstall)).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toMatchObject({
      applicationToken: 'b'.repeat(32),
      userId: PAGE_USER,
    })
    // The installing user is no administrator any more: their next reinstall is refused.
    portal.setAdmin(false)
    rig.later()
    await expect(
      fleet.handleEvent(portal.installEvent('ONAPPINSTALL', { applicationToken: 'c'.repeat(32) })),
    ).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ applicationToken: 'b'.repeat(32) })
  })
})

describe("a refresh answer naming another portal's member_id and client_endpoint", () => {
  /** Two portals installed on one fleet and its store, the first one's access token expired. */
  async function twoPortals(callbackRefreshAuth?: (params: PortalOAuthParams) => void) {
    const a = await rig.portal()
    const b = await rig.portal()
    const fleet = rig.fleet(a, {
      store: new MemoryStore(),
      ...(callbackRefreshAuth && {
        callbackRefreshAuth: ({ b24OAuthParams }) => callbackRefreshAuth(b24OAuthParams),
      }),
    })
    await fleet.handleEvent(a.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(b.installEvent('ONAPPINSTALL'))
    const storedB = await fleet.store.load(b.memberId)
    a.expireAccessTokens()
    a.log.clear()
    b.log.clear()
    return { a, b, fleet, storedB }
  }

  /** What a user observes after the refresh: both rows, and where each portal's client calls. */
  async function expectEachOnItsOwn(
    { a, b, fleet, storedB }: Awaited<ReturnType<typeof twoPortals>>,
    persisted: PortalOAuthParams[],
  ): Promise<void> {
    expect(await fleet.store.load(b.memberId)).toEqual(storedB)
    const rowA = await fleet.store.load(a.memberId)
    expect(rowA).toMatchObject({
      memberId: a.memberId,
      clientEndpoint: a.clientEndpoint,
      domain: new URL(a.clientEndpoint).host,
    })
    expect(persisted.map((params) => params.memberId)).toEqual([a.memberId])
    const callB = await (await fleet.get(b.memberId)).actions.v2.call.make({ method: 'profile' })
    expect(callB.isSuccess).toBe(true)
    expect(b.log.restRequests()).toHaveLength(1)
    expect(a.log.restRequests().every((entry) => entry.status !== undefined)).toBe(true)
  }

  it("from the OAuth server: the pair stays the asking portal's, the other portal's row is untouched", async () => {
    const persisted: PortalOAuthParams[] = []
    const rig2 = await twoPortals((params) => persisted.push(params))
    const { a, b, fleet } = rig2
    a.mutateTokenResponses({ set: { member_id: b.memberId, client_endpoint: b.clientEndpoint } })
    const call = await (await fleet.get(a.memberId)).actions.v2.call.make({ method: 'profile' })
    expect(call.isSuccess).toBe(true)
    expect(a.log.refreshRequests()).toHaveLength(1)
    expect(await fleet.store.load(a.memberId)).toMatchObject({ accessToken: a.currentAccessToken })
    await expectEachOnItsOwn(rig2, persisted)
  })

  it('from a custom refresh: the same', async () => {
    const persisted: PortalOAuthParams[] = []
    const rig2 = await twoPortals((params) => persisted.push(params))
    const { a, b, fleet } = rig2
    const client = await fleet.get(a.memberId)
    client.auth.setCustomRefreshAuth(async () => {
      const fresh = a.issueAuthParams()
      return {
        access_token: fresh.accessToken,
        refresh_token: fresh.refreshToken,
        expires_in: 3600,
        member_id: b.memberId,
        client_endpoint: b.clientEndpoint,
      } as HandlerRefreshAuth
    })
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await expectEachOnItsOwn(rig2, persisted)
  })
})

describe('an ONAPPUNINSTALL carrying the stored application token', () => {
  it('while the application is installed is refused, also when the stored pair has expired', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await fleet.get(portal.memberId)
    // What a user of the application's page can post: the portal's uninstall body, the application being installed.
    const forged = portal.installEvent('ONAPPUNINSTALL')
    const refusal = {
      code: SdkErrorCode.EventNotProved,
      message: `handleEvent: portal ${portal.memberId}: the portal still answers with the stored pair, so the application is installed; nothing was changed`,
    }
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject(refusal)
    portal.expireAccessTokens()
    await expect(fleet.handleEvent(forged)).rejects.toMatchObject(refusal)
    expect(portal.log.refreshRequests()).toHaveLength(1)
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ accessToken: portal.currentAccessToken })
    expect(await fleet.get(portal.memberId)).toBe(client)
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('when the portal answers with its limits, nothing is learned: refused with NETWORK_ERROR, nothing changed', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, { restrictionParams: { maxRetries: 0 } })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const forged = portal.installEvent('ONAPPUNINSTALL')
    for (const code of ['QUERY_LIMIT_EXCEEDED', 'OPERATION_TIME_LIMIT']) {
      portal.defineMethod('app.info', () => {
        throw new EmulatorRestError(code, 'Too many requests', 503)
      })
      await expect(fleet.handleEvent(forged)).rejects.toMatchObject({
        code: SdkErrorCode.NetworkError,
        message: `handleEvent ONAPPUNINSTALL: portal ${portal.memberId}: the portal could not be asked whether the application is still installed; nothing was changed`,
        request: { method: 'app.info' },
      })
    }
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ accessToken: portal.currentAccessToken })
  })

  it('when app.info answers another error (a 5xx, an access rule, a missing method), nothing is learned', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, { restrictionParams: { maxRetries: 0 } })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const forged = portal.installEvent('ONAPPUNINSTALL')
    const answers: [string, number][] = [
      ['INTERNAL_SERVER_ERROR', 500],
      ['ACCESS_DENIED', 403],
      ['ERROR_METHOD_NOT_FOUND', 404],
    ]
    for (const [code, status] of answers) {
      portal.defineMethod('app.info', () => {
        throw new EmulatorRestError(code, 'not now', status)
      })
      await expect(fleet.handleEvent(forged), code).rejects.toMatchObject({
        code: SdkErrorCode.NetworkError,
        message: `handleEvent ONAPPUNINSTALL: portal ${portal.memberId}: the portal could not be asked whether the application is still installed; nothing was changed`,
      })
    }
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ accessToken: portal.currentAccessToken })
  })

  it('when the OAuth server fails the refresh of the dead pair (HTTP 500), nothing is learned either', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, { restrictionParams: { maxRetries: 0 } })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const genuine = portal.uninstall()
    portal.failOAuth({ error: 'server_error', error_description: 'try later', status: 500 }, 10)
    await expect(fleet.handleEvent(genuine)).rejects.toMatchObject({ code: SdkErrorCode.NetworkError })
    expect(await fleet.store.load(portal.memberId)).not.toBeNull()
    portal.clearFaults()
    expect((await fleet.handleEvent(genuine)).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('when the OAuth server answers the refresh of the dead pair with no refusal of it, nothing is learned', async () => {
    const portal = await rig.portal()
    let proxyRefuses = false
    const fleet = rig.fleet(portal, {
      httpOptions: {
        // A proxy in front of the OAuth server that answers a page of its own, no OAuth error.
        adapter: async (input, init) => {
          const url = input instanceof Request ? input.url : String(input)
          if (proxyRefuses && url === portal.tokenUrl)
            return new Response('<html>forbidden</html>', { status: 403 })
          return fetch(input, init)
        },
      },
      restrictionParams: { maxRetries: 0 },
    })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const genuine = portal.uninstall()
    const refusal = {
      code: SdkErrorCode.NetworkError,
      message: `handleEvent ONAPPUNINSTALL: portal ${portal.memberId}: the portal could not be asked whether the application is still installed; nothing was changed`,
    }
    proxyRefuses = true
    await expect(fleet.handleEvent(genuine)).rejects.toMatchObject(refusal)
    expect(await fleet.store.load(portal.memberId)).not.toBeNull()
    proxyRefuses = false
    expect((await fleet.handleEvent(genuine)).changed).toBe(true)
    // An unknown client id is answered HTTP 200 with an OAuth error (protocol.md): it says nothing of the pair.
    const other = await rig.portal()
    const second = rig.fleet(other)
    await second.handleEvent(other.installEvent('ONAPPINSTALL'))
    const uninstalled = other.uninstall()
    other.failOAuth({ error: 'wrong_client', status: 200 }, 10)
    await expect(second.handleEvent(uninstalled)).rejects.toMatchObject({ code: SdkErrorCode.NetworkError })
    expect(await second.store.load(other.memberId)).not.toBeNull()
  })

  it('taken when the portal refuses the stored token itself (invalid_token, expired_token) after a refresh', async () => {
    for (const code of ['invalid_token', 'expired_token']) {
      const portal = await rig.portal()
      const fleet = rig.fleet(portal)
      await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
      portal.defineMethod('app.info', () => {
        throw new EmulatorRestError(code, 'The access token provided is invalid', 401)
      })
      expect((await fleet.handleEvent(portal.installEvent('ONAPPUNINSTALL'))).changed, code).toBe(true)
      expect(await fleet.store.load(portal.memberId)).toBeNull()
    }
  })

  it("when the portal cannot be asked is refused with NETWORK_ERROR; the portal's own uninstall is taken", async () => {
    const portal = await rig.portal()
    let cut = false
    const fleet = rig.fleet(portal, {
      httpOptions: {
        adapter: async (input, init) => {
          if (cut) throw new Error('ECONNRESET')
          return fetch(input, init)
        },
      },
      restrictionParams: { maxRetries: 0 },
    })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const genuine = portal.uninstall()
    cut = true
    await expect(fleet.handleEvent(genuine)).rejects.toMatchObject({
      code: SdkErrorCode.NetworkError,
      message: expect.stringContaining('could not be asked whether the application is still installed'),
    })
    expect(await fleet.store.load(portal.memberId)).not.toBeNull()
    cut = false
    expect((await fleet.handleEvent(genuine)).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('taken when another fleet on the same store removed the portal after this one read it', async () => {
    const portal = await rig.portal()
    // The portal's row is read by the worker's event, then the web fleet takes the same uninstall before the worker
    // asks the portal: the worker's held client learns from the store that the portal is gone.
    const store = new (class extends MemoryStore {
      afterLoad: (() => Promise<unknown>) | undefined
      override async load(memberId: string): Promise<PortalOAuthParams | null> {
        const row = await super.load(memberId)
        const hook = this.afterLoad
        this.afterLoad = undefined
        await hook?.()
        return row
      }
    })()
    const web = rig.fleet(portal, { store })
    const worker = rig.fleet(portal, { store })
    await web.handleEvent(portal.installEvent('ONAPPINSTALL'))
    await worker.get(portal.memberId)
    const genuine = portal.uninstall()
    store.afterLoad = () => web.handleEvent(genuine)
    const sent = portal.log.restRequests().length
    expect(await worker.handleEvent(genuine)).toMatchObject({ event: 'ONAPPUNINSTALL', changed: true })
    // The web fleet's check asked the portal once; the worker's call was refused unsent.
    expect(portal.log.restRequests().length - sent).toBe(1)
    expect(await store.load(portal.memberId)).toBeNull()
    await expect(worker.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.PortalNotInstalled })
  })
})
