import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type FetchLike, SdkErrorCode } from '../../src/index.js'
import { createMemoryLogger } from '../helpers.js'
import { createFleetRig } from './fleet-rig.js'

// A fleet's clients and events over time: concurrent get()s, destroy() meeting work in flight, and what the fleet
// and its clients write to the fleet's logger.

const rig = createFleetRig()
afterEach(() => rig.close())

describe('PortalFleet over time', () => {
  it('two get()s at once build one client', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const [one, two] = await Promise.all([fleet.get(portal.memberId), fleet.get(portal.memberId)])
    expect(one).toBe(two)
  })

  it('destroy() while get() reads the store: the get() is refused, no client is left', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const getting = fleet.get(portal.memberId)
    const destroying = fleet.destroy()
    await expect(getting).rejects.toMatchObject({ code: SdkErrorCode.Destroyed })
    await destroying
  })

  it('destroy() waits for an event whose proof is in flight', async () => {
    const portal = await rig.portal()
    // Sent through an adapter, so that it is the event the fleet waits for, not the closing of a pool of its own.
    const adapter: FetchLike = (input, init) => fetch(input, init)
    const fleet = rig.fleet(portal, { httpOptions: { adapter } })
    portal.holdRequests(1, { server: 'oauth' })
    const handling = fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    await portal.waitForHeld()
    let destroyed = false
    const destroying = fleet.destroy().then(() => {
      destroyed = true
    })
    await sleep(100)
    expect(destroyed).toBe(false)
    portal.releaseHeldRequests()
    expect((await handling).changed).toBe(true)
    await destroying
    expect(destroyed).toBe(true)
  })

  it("writes a line for each install, update, ignored event and uninstall; its clients write to the fleet's logger", async () => {
    const portal = await rig.portal()
    const logger = createMemoryLogger()
    const fleet = rig.fleet(portal, { logger })
    const info = (): string[] =>
      logger.lines.filter((line) => line.level === 'info').map((line) => line.message)
    const install = portal.installEvent('ONAPPINSTALL')
    await fleet.handleEvent(install)
    expect(info()).toContain('PortalFleet: portal installed')
    await fleet.handleEvent(install)
    expect(info()).toContain('PortalFleet: ONAPPINSTALL ignored: its pair is not newer than the stored one')
    rig.later()
    await fleet.handleEvent(portal.installEvent('ONAPPUPDATE'))
    expect(info()).toContain('PortalFleet: portal updated')
    const client = await fleet.get(portal.memberId)
    await client.auth.refreshAuth()
    expect(info()).toContain('token pair refreshed')
    expect((await fleet.handleEvent(portal.uninstall())).changed).toBe(true)
    expect(info()).toContain('PortalFleet: portal uninstalled')
  })
})
