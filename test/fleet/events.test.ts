import { parse } from 'qs'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, SdkErrorCode } from '../../src/index.js'
import { authField, createFleetRig, destroyed } from './fleet-rig.js'

const rig = createFleetRig()
afterEach(() => rig.close())

describe('ONAPPINSTALL', () => {
  it('stores the pair and application token of auth[member_id]; get() calls the portal with it', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const body = portal.installEvent('ONAPPINSTALL')
    expect(await fleet.handleEvent(body)).toMatchObject({ event: 'ONAPPINSTALL', memberId: portal.memberId })
    const stored = await fleet.store.load(portal.memberId)
    expect(stored).toEqual({
      applicationToken: portal.applicationToken,
      userId: 1,
      memberId: portal.memberId,
      accessToken: authField(body, 'access_token'),
      refreshToken: authField(body, 'refresh_token'),
      expires: Number(authField(body, 'expires')),
      expiresIn: 3600,
      scope: 'crm,user,task,main',
      domain: new URL(portal.portalOrigin).host,
      clientEndpoint: portal.clientEndpoint,
      serverEndpoint: portal.serverEndpoint,
      status: 'L',
    })
    const client = await fleet.get(portal.memberId)
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(portal.log.restRequests().at(-1)?.token).toBe(authField(body, 'access_token'))
  })

  it('takes the body as a string, URLSearchParams, a qs-style nested object and flat bracket keys alike', async () => {
    const portal = await rig.portal()
    const shapes = [
      (body: string) => body,
      (body: string) => new URLSearchParams(body),
      (body: string) => parse(body),
      (body: string) => Object.fromEntries(new URLSearchParams(body)),
    ]
    for (const shape of shapes) {
      const fleet = rig.fleet(portal)
      const body = portal.installEvent('ONAPPINSTALL')
      await fleet.handleEvent(shape(body))
      const stored = await fleet.store.load(portal.memberId)
      expect(stored?.refreshToken).toBe(authField(body, 'refresh_token'))
      expect(stored?.applicationToken).toBe(portal.applicationToken)
    }
  })

  it('a second install with the same application token replaces the pair', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    rig.later()
    const again = portal.installEvent('ONAPPINSTALL')
    await fleet.handleEvent(again)
    expect((await fleet.store.load(portal.memberId))?.accessToken).toBe(authField(again, 'access_token'))
  })

  it('a reinstall with another application token is taken once the OAuth server confirms its access token', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    rig.later()
    const reinstall = portal.installEvent('ONAPPINSTALL', { applicationToken: 'f'.repeat(32) })
    expect(await fleet.handleEvent(reinstall)).toMatchObject({ changed: true })
    const stored = await fleet.store.load(portal.memberId)
    expect(stored?.applicationToken).toBe('f'.repeat(32))
    expect(stored?.accessToken).toBe(authField(reinstall, 'access_token'))
    const check = portal.log.entries.filter((entry) => entry.server === 'oauth').at(-1)
    expect(check).toMatchObject({ path: '/rest/app.info/', httpMethod: 'POST', status: 200 })
    // The access token goes in the body, never in the URL: the query is empty, not merely a subset.
    expect(check?.query).toEqual({})
    expect(check?.token).toBe(authField(reinstall, 'access_token'))
  })

  it('converts the string fields (expires, expires_in, user_id) and validates the pair like the constructor', async () => {
    const portal = await rig.portal({ userId: 7 })
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL', { expiresIn: 600 }))
    const stored = await fleet.store.load(portal.memberId)
    expect(stored).toMatchObject({ userId: 7, expiresIn: 600 })
    expect(typeof stored?.expires).toBe('number')
    const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    body.set('auth[client_endpoint]', 'ftp://example.test/rest/')
    await expect(rig.fleet(portal).handleEvent(body)).rejects.toMatchObject({
      code: SdkErrorCode.InvalidArgument,
      message: expect.stringContaining('clientEndpoint'),
    })
    body.set('auth[client_endpoint]', portal.clientEndpoint)
    body.set('auth[expires]', 'soon')
    await expect(rig.fleet(portal).handleEvent(body)).rejects.toMatchObject({
      code: SdkErrorCode.InvalidArgument,
      message: expect.stringContaining('auth[expires]'),
    })
  })

  it('an install without an application token is refused and stores nothing', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const body = portal.installEvent('ONAPPINSTALL', { applicationToken: '' })
    await expect(fleet.handleEvent(body)).rejects.toMatchObject({
      code: SdkErrorCode.ApplicationTokenMismatch,
    })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })
})

describe('ONAPPUPDATE', () => {
  it('stores the new pair; a held client takes it', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await fleet.get(portal.memberId)
    rig.later()
    const update = portal.installEvent('ONAPPUPDATE')
    expect(await fleet.handleEvent(update)).toMatchObject({ event: 'ONAPPUPDATE', memberId: portal.memberId })
    expect((await fleet.store.load(portal.memberId))?.refreshToken).toBe(authField(update, 'refresh_token'))
    expect(await fleet.get(portal.memberId)).toBe(client)
    expect(client.auth.getParams().accessToken).toBe(authField(update, 'access_token'))
  })

  it('with another or no application token is refused and changes nothing', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = await fleet.store.load(portal.memberId)
    for (const applicationToken of ['0'.repeat(32), 'short', '']) {
      await expect(
        fleet.handleEvent(portal.installEvent('ONAPPUPDATE', { applicationToken })),
      ).rejects.toMatchObject({ code: SdkErrorCode.ApplicationTokenMismatch })
    }
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
  })

  it('for a portal the store does not know is refused with JSSDK_PORTAL_NOT_INSTALLED', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await expect(fleet.handleEvent(portal.installEvent('ONAPPUPDATE'))).rejects.toMatchObject({
      code: SdkErrorCode.PortalNotInstalled,
    })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })
})

describe('ONAPPUNINSTALL', () => {
  it('removes the portal from the store and destroys its held client', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await fleet.get(portal.memberId)
    expect(await fleet.handleEvent(portal.uninstall())).toMatchObject({
      event: 'ONAPPUNINSTALL',
      memberId: portal.memberId,
      data: { LANGUAGE_ID: 'en', CLEAN: '0' },
    })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
    await expect(client.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      code: SdkErrorCode.Destroyed,
    })
    await expect(fleet.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.PortalNotInstalled })
  })

  it('with another application token is refused and changes nothing', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await fleet.get(portal.memberId)
    const before = await fleet.store.load(portal.memberId)
    await expect(
      fleet.handleEvent(portal.installEvent('ONAPPUNINSTALL', { applicationToken: 'b'.repeat(32) })),
    ).rejects.toMatchObject({ code: SdkErrorCode.ApplicationTokenMismatch })
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
    expect(await fleet.get(portal.memberId)).toBe(client)
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('for a portal the store does not know is refused with JSSDK_PORTAL_NOT_INSTALLED', async () => {
    const portal = await rig.portal()
    await expect(rig.fleet(portal).handleEvent(portal.installEvent('ONAPPUNINSTALL'))).rejects.toMatchObject({
      code: SdkErrorCode.PortalNotInstalled,
    })
  })

  it("handled by another fleet on the same store: the held client's next call rejects unsent, it is released, get() rejects", async () => {
    const portal = await rig.portal()
    const store = new MemoryStore()
    const web = rig.fleet(portal, { store })
    const worker = rig.fleet(portal, { store })
    await web.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await worker.get(portal.memberId)
    await web.handleEvent(portal.uninstall())
    // A held client is handed out without a store read; the store's answer to its next call says the portal is gone.
    expect(await worker.get(portal.memberId)).toBe(client)
    const sent = portal.log.restRequests().length
    await expect(client.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      code: SdkErrorCode.PortalNotInstalled,
    })
    expect(portal.log.restRequests()).toHaveLength(sent)
    await destroyed(client)
    await expect(worker.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.PortalNotInstalled })
    // The held pair was never written back: the portal stays uninstalled until the next install.
    expect(await store.load(portal.memberId)).toBeNull()
    await web.handleEvent(portal.installEvent('ONAPPINSTALL'))
    expect(
      (await (await worker.get(portal.memberId)).actions.v2.call.make({ method: 'profile' })).isSuccess,
    ).toBe(true)
  })
})

describe('other events', () => {
  it('are checked against the stored application token and resolve with their data', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = await fleet.store.load(portal.memberId)
    const body = new URLSearchParams(portal.installEvent('ONAPPUNINSTALL'))
    body.set('event', 'ONCRMCONTACTADD')
    body.delete('data[CLEAN]')
    body.set('data[FIELDS][ID]', '134806')
    expect(await fleet.handleEvent(body)).toMatchObject({
      event: 'ONCRMCONTACTADD',
      memberId: portal.memberId,
      data: { FIELDS: { ID: '134806' } },
    })
    body.set('auth[application_token]', 'c'.repeat(32))
    await expect(fleet.handleEvent(body)).rejects.toMatchObject({
      code: SdkErrorCode.ApplicationTokenMismatch,
    })
    expect(await fleet.store.load(portal.memberId)).toEqual(before)
  })
})
