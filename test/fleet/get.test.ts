import { afterEach, describe, expect, it } from 'vitest'
import {
  type FetchLike,
  MemoryStore,
  PortalFleet,
  type RefreshAuthPayload,
  SdkErrorCode,
} from '../../src/index.js'
import { createMemoryLogger } from '../helpers.js'
import { createFleetRig, destroyed } from './fleet-rig.js'

const rig = createFleetRig()
afterEach(() => rig.close())

describe('fleet.get(memberId)', () => {
  it('gives the same client while it is held; the clients of two portals are apart', async () => {
    const first = await rig.portal()
    const second = await rig.portal()
    const fleet = rig.fleet(first)
    await fleet.handleEvent(first.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(second.installEvent('ONAPPINSTALL'))
    // Each install asked its portal whether the installing user is an administrator; only the calls count here.
    first.log.clear()
    second.log.clear()
    const a = await fleet.get(first.memberId)
    expect(await fleet.get(first.memberId)).toBe(a)
    const b = await fleet.get(second.memberId)
    expect(b).not.toBe(a)
    expect((await b.actions.v3.call.make({ method: 'tasks.task.list' })).isSuccess).toBe(true)
    expect(second.log.restRequests()).toHaveLength(1)
    expect(first.log.restRequests()).toHaveLength(0)
  })

  it("one client's restriction params change that client only; the fleet's, read through another, stay as given", async () => {
    const first = await rig.portal()
    const second = await rig.portal()
    const fleet = rig.fleet(first, { restrictionParams: { rateLimit: { burstLimit: 40 } } })
    await fleet.handleEvent(first.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(second.installEvent('ONAPPINSTALL'))
    const a = await fleet.get(first.memberId)
    const b = await fleet.get(second.memberId)
    a.setRestrictionManagerParams({ rateLimit: { burstLimit: 7 }, maxRetries: 1 })
    const read = b.getRestrictionManagerParams()
    // A copy: editing it changes nothing in the client.
    read.rateLimit.burstLimit = 1
    expect(a.getRestrictionManagerParams()).toMatchObject({ rateLimit: { burstLimit: 7 }, maxRetries: 1 })
    expect(b.getRestrictionManagerParams().rateLimit.burstLimit).toBe(40)
    expect(b.getRestrictionManagerParams().maxRetries).not.toBe(1)
    // A client built after the change gets the fleet's params too.
    const third = await rig.portal()
    await fleet.handleEvent(third.installEvent('ONAPPINSTALL'))
    expect((await fleet.get(third.memberId)).getRestrictionManagerParams().rateLimit.burstLimit).toBe(40)
    expect((await b.actions.v3.call.make({ method: 'tasks.task.list' })).isSuccess).toBe(true)
  })

  it('reads the store once: the client it builds from the stored pair makes its first call without reading it again', async () => {
    const portal = await rig.portal()
    const loads: string[] = []
    const store = new (class extends MemoryStore {
      override load(memberId: string) {
        loads.push(memberId)
        return super.load(memberId)
      }
    })()
    const fleet = rig.fleet(portal, { store })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    loads.length = 0
    const client = await fleet.get(portal.memberId)
    expect(loads).toEqual([portal.memberId])
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(loads).toEqual([portal.memberId])
  })

  it("builds its clients with the fleet's httpOptions: their calls go through its adapter, with its headers", async () => {
    const portal = await rig.portal()
    const sent: string[] = []
    const adapter: FetchLike = (input, init) => {
      const request = new Request(input, init)
      sent.push(`${request.headers.get('x-fleet') ?? ''} ${new URL(request.url).pathname}`)
      return fetch(request)
    }
    const fleet = rig.fleet(portal, { httpOptions: { adapter, headers: { 'x-fleet': 'yes' } } })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await fleet.get(portal.memberId)
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    // The install's proofs (its token at the OAuth server, its user at the portal) went through the adapter too.
    expect(sent).toEqual(['yes /rest/app.info/', 'yes /rest/profile', 'yes /rest/profile'])
  })

  it('rejects with JSSDK_PORTAL_NOT_INSTALLED for a portal the store does not know', async () => {
    const portal = await rig.portal()
    await expect(rig.fleet(portal).get(portal.memberId)).rejects.toMatchObject({
      code: SdkErrorCode.PortalNotInstalled,
    })
  })

  it('releases and destroys a client idle for idleTimeout; the next get() builds a new one from the store', async () => {
    const portal = await rig.portal()
    const store = new MemoryStore()
    const fleet = rig.fleet(portal, { store, idleTimeout: 50 })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const first = await fleet.get(portal.memberId)
    // Another fleet on the store refreshes meanwhile (a client about to be released must not be used).
    await (await rig.fleet(portal, { store }).get(portal.memberId)).auth.refreshAuth()
    await destroyed(first)
    const next = await fleet.get(portal.memberId)
    expect(next).not.toBe(first)
    // Built from the store: the pair refreshed since, not the install's.
    expect(next.auth.getParams().refreshToken).toBe(portal.currentRefreshToken)
    expect((await next.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('refreshes an expired pair once for all calls, runs callbackRefreshAuth once, and the store holds the new pair', async () => {
    const portal = await rig.portal()
    const persisted: RefreshAuthPayload[] = []
    const store = new MemoryStore()
    const fleets = [1, 2].map(() =>
      rig.fleet(portal, { store, callbackRefreshAuth: (payload) => void persisted.push(payload) }),
    )
    // An install event's token is fresh (an expired one proves nothing): the stored pair is installed expired.
    await fleets[0]?.install(portal.issueAuthParams({ expiresIn: 0 }))
    const calls = await Promise.all(
      fleets.flatMap((fleet) =>
        Array.from({ length: 5 }, async () =>
          (await fleet.get(portal.memberId)).actions.v2.call.make({ method: 'profile' }),
        ),
      ),
    )
    expect(calls.every((result) => result.isSuccess)).toBe(true)
    expect(portal.log.refreshRequests()).toHaveLength(1)
    expect(persisted).toHaveLength(1)
    expect((await store.load(portal.memberId))?.refreshToken).toBe(portal.currentRefreshToken)
  })

  it('rejects with JSSDK_CLIENT_DESTROYED after destroy(), which destroys every held client', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const client = await fleet.get(portal.memberId)
    await fleet.destroy()
    await expect(client.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      code: SdkErrorCode.Destroyed,
    })
    await expect(fleet.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.Destroyed })
    await expect(fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))).rejects.toMatchObject({
      code: SdkErrorCode.Destroyed,
    })
  })
})

describe('new PortalFleet(options)', () => {
  it('validates its options like PortalOAuth and warns of unknown keys', async () => {
    const portal = await rig.portal()
    const oAuthSecret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
    const invalid = [
      undefined,
      { oAuthSecret: { clientId: portal.clientId, clientSecret: undefined } },
      { oAuthSecret, store: {} },
      { oAuthSecret, idleTimeout: 0 },
      { oAuthSecret, restrictionParams: { rateLimit: { burstLimit: -1 } } },
      { oAuthSecret, httpOptions: { timeout: 'slow' } },
      { oAuthSecret, logger: console.log },
    ]
    for (const options of invalid) {
      expect(() => new PortalFleet(options as never)).toThrow(
        expect.objectContaining({ code: 'JSSDK_INVALID_ARGUMENT' }),
      )
    }
    // A store that is no object lacks every method, and the message names them.
    expect(() => new PortalFleet({ oAuthSecret, store: 42 } as never)).toThrow(
      /options\.store.*lacks load, save, replace, remove, lock, unlock, changed, takeSlot, close$/,
    )
    const logger = createMemoryLogger()
    const fleet = new PortalFleet({ oAuthSecret, logger, idleTimout: 5, stor: null } as never)
    await fleet.destroy()
    expect(logger.lines).toContainEqual({
      level: 'warn',
      message: 'PortalFleet: ignored unknown option(s) idleTimout, stor',
    })
    expect(JSON.stringify(logger.lines)).not.toContain(portal.clientSecret)
  })
})
