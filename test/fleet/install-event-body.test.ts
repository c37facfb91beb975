import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryLogger } from '../helpers.js'
import { createFleetRig } from './fleet-rig.js'

const rig = createFleetRig()
afterEach(() => rig.close())

describe('emulator.installEvent', () => {
  it('builds the form body a portal POSTs: bracket keys, string leaves, auth keys in the portal order', async () => {
    const portal = await rig.portal()
    const body = portal.installEvent('ONAPPINSTALL')
    expect(body).toContain('auth%5Baccess_token%5D=')
    const params = new URLSearchParams(body)
    expect([...params.keys()]).toEqual([
      'event',
      'event_handler_id',
      'data[VERSION]',
      'data[ACTIVE]',
      'data[INSTALLED]',
      'data[LANGUAGE_ID]',
      'ts',
      'auth[access_token]',
      'auth[expires]',
      'auth[expires_in]',
      'auth[scope]',
      'auth[domain]',
      'auth[server_endpoint]',
      'auth[status]',
      'auth[client_endpoint]',
      'auth[member_id]',
      'auth[user_id]',
      'auth[refresh_token]',
      'auth[application_token]',
    ])
    expect(params.get('event')).toBe('ONAPPINSTALL')
    expect(params.get('auth[domain]')).toBe(new URL(portal.portalOrigin).host)
    expect(params.get('auth[refresh_token]')).toBe(portal.currentRefreshToken)
    expect(params.get('auth[application_token]')).toBe(portal.applicationToken)
  })

  it('an uninstall carries no token', async () => {
    const portal = await rig.portal()
    const params = new URLSearchParams(portal.installEvent('ONAPPUNINSTALL'))
    expect(params.get('event')).toBe('ONAPPUNINSTALL')
    expect([...params.keys()].filter((key) => key.startsWith('auth['))).toEqual([
      'auth[domain]',
      'auth[server_endpoint]',
      'auth[client_endpoint]',
      'auth[member_id]',
      'auth[application_token]',
    ])
  })
})

describe('the fleet logs', () => {
  it('events by portal and kind, never a token, the application token or the client secret', async () => {
    const portal = await rig.portal()
    const logger = createMemoryLogger()
    const fleet = rig.fleet(portal, { logger })
    const install = portal.installEvent('ONAPPINSTALL')
    await fleet.handleEvent(install)
    await (await fleet.get(portal.memberId)).auth.refreshAuth()
    await fleet.handleEvent(portal.installEvent('ONAPPUPDATE'))
    await fleet.handleEvent(portal.uninstall())
    await fleet.handleEvent(install).catch(() => undefined)
    const logged = JSON.stringify(logger.lines)
    expect(logged).toContain(portal.memberId)
    expect(logger.lines.map((line) => line.message)).toContain('PortalFleet: portal uninstalled')
    const params = new URLSearchParams(install)
    for (const secret of [
      params.get('auth[access_token]'),
      params.get('auth[refresh_token]'),
      portal.applicationToken,
      portal.clientSecret,
    ]) {
      expect(logged).not.toContain(secret)
    }
  })
})
