import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, PortalOAuth, SdkErrorCode } from '../../src/index.js'
import { createFleetRig } from './fleet-rig.js'

// The words of each refusal of the fleet, for events, install(), get() and a destroyed fleet, and of the code
// exchange's own argument checks: an application's logs and alerts read them.

const rig = createFleetRig()
afterEach(() => rig.close())

/** How `pending` rejected. */
async function refusal(pending: Promise<unknown>): Promise<{ code?: string; message: string }> {
  return pending.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error: unknown) => error as { code?: string; message: string },
  )
}

describe('PortalFleet refusals, word for word', () => {
  it('events without a member id or an application token, of a portal not installed, or with another token', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const body = (): URLSearchParams => new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    const noMember = body()
    noMember.delete('auth[member_id]')
    expect(await refusal(fleet.handleEvent(noMember))).toMatchObject({
      code: SdkErrorCode.InvalidArgument,
      message: 'handleEvent: auth[member_id] is missing or not a member id',
    })
    const noToken = body()
    noToken.set('auth[application_token]', '')
    expect(await refusal(fleet.handleEvent(noToken))).toMatchObject({
      code: SdkErrorCode.ApplicationTokenMismatch,
      message: `handleEvent: portal ${portal.memberId}: the event carries no application token; nothing was changed`,
    })
    const withoutToken = body()
    withoutToken.delete('auth[application_token]')
    expect(await refusal(fleet.handleEvent(withoutToken))).toMatchObject({
      code: SdkErrorCode.ApplicationTokenMismatch,
    })
    expect(await refusal(fleet.handleEvent(portal.installEvent('ONAPPUPDATE')))).toMatchObject({
      code: SdkErrorCode.PortalNotInstalled,
      message: `handleEvent ONAPPUPDATE: portal ${portal.memberId} is not installed (the store holds no pair for it)`,
    })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const other = new URLSearchParams(portal.installEvent('ONAPPUNINSTALL'))
    other.set('auth[application_token]', 'f'.repeat(32))
    expect(await refusal(fleet.handleEvent(other))).toMatchObject({
      code: SdkErrorCode.ApplicationTokenMismatch,
      message: `handleEvent: portal ${portal.memberId}: the application token differs from the stored one; nothing was changed`,
    })
    expect(await fleet.store.load(portal.memberId)).not.toBeNull()
  })

  it('an event whose pair is invalid says why; an event of another kind changes nothing', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const invalid = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    invalid.set('auth[status]', 'not a status')
    const failure = await refusal(fleet.handleEvent(invalid))
    expect(failure.code).toBe(SdkErrorCode.InvalidArgument)
    expect(failure.message).toMatch(/^handleEvent: the event's pair is invalid: \S/)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const stored = await fleet.store.load(portal.memberId)
    const other = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
    other.set('event', 'ONAPPTEST')
    expect(await fleet.handleEvent(other)).toMatchObject({ event: 'ONAPPTEST', changed: false })
    expect(await fleet.store.load(portal.memberId)).toEqual(stored)
  })

  it('get() of a portal not installed, install() of a pair from an untrusted server, and a destroyed fleet', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    expect(await refusal(fleet.get(portal.memberId))).toMatchObject({
      code: SdkErrorCode.PortalNotInstalled,
      message: `PortalFleet.get: portal ${portal.memberId} is not installed (the store holds no pair for it)`,
    })
    const untrusted = { ...portal.issueAuthParams(), serverEndpoint: 'https://oauth.untrusted.example/rest/' }
    expect((await refusal(fleet.install(untrusted))).message).toContain(
      'PortalFleet.install: params.serverEndpoint',
    )
    await fleet.destroy()
    const destroyed = { code: SdkErrorCode.Destroyed, message: 'PortalFleet was destroyed; create a new one' }
    expect(await refusal(fleet.get(portal.memberId))).toMatchObject(destroyed)
    expect(await refusal(fleet.handleEvent(portal.installEvent('ONAPPINSTALL')))).toMatchObject(destroyed)
    expect(await refusal(fleet.install(portal.issueAuthParams()))).toMatchObject(destroyed)
  })

  it('a client built without a fleet, on a store where its portal was removed: the call is refused, nothing else', async () => {
    const portal = await rig.portal()
    const store = new MemoryStore()
    const client = new PortalOAuth(
      portal.issueAuthParams(),
      { clientId: portal.clientId, clientSecret: portal.clientSecret },
      { store },
    )
    await store.remove(portal.memberId)
    const uncaught: unknown[] = []
    const onUncaught = (error: unknown): void => void uncaught.push(error)
    process.on('uncaughtException', onUncaught)
    try {
      await expect(client.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
        code: SdkErrorCode.PortalNotInstalled,
      })
      // Nobody listens for the removal of a client no fleet holds: telling nobody throws nothing.
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setImmediate(resolve))
      expect(uncaught).toEqual([])
    } finally {
      process.off('uncaughtException', onUncaught)
      await client.destroy()
    }
  })
})
