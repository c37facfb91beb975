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

  it('an event whose store read or removal fails rejects naming it, without the tokens the store quotes', async () => {
    const portal = await rig.portal()
    // A store that names a row it cannot decode by its application token, and fails to remove a portal.
    const store = new (class extends MemoryStore {
      loads: 'fine' | 'garbled' = 'fine'
      override async load(memberId: string): Promise<PortalOAuthParams | null> {
        const row = await super.load(memberId)
        if (this.loads === 'garbled') throw new Error(`row ${row?.applicationToken} cannot be decoded`)
        return row
      }
      override async remove(memberId: string): Promise<void> {
        throw new Error(`remove ${memberId} refused`)
      }
    })()
    const fleet = rig.fleet(portal, { store })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const other = new URLSearchParams(portal.installEvent('ONAPPUNINSTALL'))
    other.set('event', 'ONCRMDEALADD')
    rig.later()
    store.loads = 'garbled'
    for (const body of [portal.installEvent('ONAPPUPDATE'), portal.installEvent('ONAPPUNINSTALL'), other]) {
      const error = await fleet.handleEvent(body).catch((failure: unknown) => failure)
      expect(error).toMatchObject({
        code: SdkErrorCode.TokenStoreFailed,
        message: expect.stringMatching(
          `^token store failed reading the pair of portal ${portal.memberId}: row `,
        ),
      })
      expect(String((error as Error).message)).not.toContain(portal.applicationToken)
    }
    store.loads = 'fine'
    await expect(fleet.handleEvent(portal.uninstall())).rejects.toMatchObject({
      code: SdkErrorCode.TokenStoreFailed,
      message: `token store failed removing portal ${portal.memberId}: remove ${portal.memberId} refused`,
    })
  })
})
