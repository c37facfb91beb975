import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, type PortalOAuthParams, SdkErrorCode } from '../../src/index.js'
import { createFleetRig } from './fleet-rig.js'

// What the fleet asks of its store: each store read costs a round trip on a shared store (Redis), so an event or a
// get() reads it no more than it needs to.

const rig = createFleetRig()
afterEach(() => rig.close())

/** A MemoryStore that counts its reads. */
class CountedStore extends MemoryStore {
  loads = 0
  override load(memberId: string): Promise<PortalOAuthParams | null> {
    this.loads += 1
    return super.load(memberId)
  }
}

describe('store reads', () => {
  it('an event the stored pair refuses, with no install of its portal in flight, reads it once', async () => {
    const portal = await rig.portal()
    const store = new CountedStore()
    const fleet = rig.fleet(portal, { store })
    // Installed by a reinstall, which the fleet proves outside the portal's queue and then forgets.
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    rig.later()
    expect(
      await fleet.handleEvent(portal.installEvent('ONAPPINSTALL', { applicationToken: 'c'.repeat(32) })),
    ).toMatchObject({ changed: true })
    for (const event of ['ONAPPUPDATE', 'ONAPPUNINSTALL'] as const) {
      store.loads = 0
      await expect(
        fleet.handleEvent(portal.installEvent(event, { applicationToken: 'e'.repeat(32) })),
      ).rejects.toMatchObject({ code: SdkErrorCode.ApplicationTokenMismatch })
      expect(store.loads).toBe(1)
    }
  })

  it('get() after destroy() reads nothing', async () => {
    const portal = await rig.portal()
    const store = new CountedStore()
    const fleet = rig.fleet(portal, { store })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    await fleet.get(portal.memberId)
    await fleet.destroy()
    store.loads = 0
    await expect(fleet.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.Destroyed })
    expect(store.loads).toBe(0)
  })
})
