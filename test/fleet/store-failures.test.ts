import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, type PortalOAuthParams, SdkErrorCode } from '../../src/index.js'
import { createFleetRig } from './fleet-rig.js'

// A fleet on a store that throws or never answers. Stand-in stores: a MemoryStore cannot fail, and a real Redis
// cannot be made to throw synchronously (an application's own store can).

const rig = createFleetRig()
afterEach(() => rig.close())

/** A MemoryStore whose `load` throws synchronously, or never answers, from the moment it is told to. */
class BrokenLoads extends MemoryStore {
  mode: 'fine' | 'throws' | 'hangs' = 'fine'
  override load(memberId: string): Promise<PortalOAuthParams | null> {
    if (this.mode === 'throws') throw new Error('load broke at once')
    if (this.mode === 'hangs') return new Promise(() => undefined)
    return super.load(memberId)
  }
}

describe('PortalFleet on a failing store', () => {
  it('a store that throws at once, or does not answer within httpOptions.timeout: get() rejects, naming it', async () => {
    const portal = await rig.portal()
    const store = new BrokenLoads()
    // Installed by a fleet with the default timeout: 200 ms bounds the proof's whole answers too, tight on a busy host.
    await rig.fleet(portal, { store }).handleEvent(portal.installEvent('ONAPPINSTALL'))
    const fleet = rig.fleet(portal, { store, httpOptions: { timeout: 200 } })
    store.mode = 'throws'
    await expect(fleet.get(portal.memberId)).rejects.toMatchObject({
      code: SdkErrorCode.TokenStoreFailed,
      message: `token store failed reading the pair of portal ${portal.memberId}: load broke at once`,
    })
    store.mode = 'hangs'
    await expect(fleet.get(portal.memberId)).rejects.toMatchObject({
      code: SdkErrorCode.TokenStoreFailed,
      message: `token store failed reading the pair of portal ${portal.memberId}: no answer within 200 ms`,
    })
    store.mode = 'fine'
    expect((await fleet.get(portal.memberId)).auth.getParams().memberId).toBe(portal.memberId)
  })
})
