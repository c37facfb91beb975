import { afterEach, describe, expect, it } from 'vitest'
import { createFleetRig } from './fleet-rig.js'

// The auth[...] fields of an install event: which may be left out, which may not, and how numbers must look.

const rig = createFleetRig()
afterEach(() => rig.close())

describe('an install event’s auth[...] fields', () => {
  it('each required field missing or empty is refused, naming it; nothing is stored', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    for (const field of [
      'access_token',
      'refresh_token',
      'domain',
      'client_endpoint',
      'server_endpoint',
      'status',
    ]) {
      for (const value of [undefined, '']) {
        const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
        if (value === undefined) body.delete(`auth[${field}]`)
        else body.set(`auth[${field}]`, value)
        await expect(fleet.handleEvent(body)).rejects.toThrow(`handleEvent: auth[${field}] is missing`)
      }
    }
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('numbers must be whole numbers of at most 12 digits', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    for (const field of ['expires_in', 'expires', 'user_id']) {
      for (const value of ['abc', '12a', 'a12', '-1', '1.5', '1234567890123']) {
        const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
        body.set(`auth[${field}]`, value)
        await expect(fleet.handleEvent(body)).rejects.toThrow(
          `handleEvent: auth[${field}] must be a whole number`,
        )
      }
    }
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('expires_in, user_id and scope may be left out or empty: 3600 s, user 0 and no scope', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    body.set('auth[expires_in]', '')
    body.set('auth[user_id]', '')
    body.delete('auth[scope]')
    expect((await fleet.handleEvent(body)).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ expiresIn: 3600, userId: 0, scope: '' })
    rig.later()
    const without = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    without.delete('auth[expires_in]')
    without.delete('auth[user_id]')
    expect((await fleet.handleEvent(without)).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ expiresIn: 3600, userId: 0 })
  })
})
