import diagnostics from 'node:diagnostics_channel'
import { afterEach, describe, expect, it } from 'vitest'
import { RefreshTokenError, SdkError } from '../../src/index.js'
import { EmulatorRestError } from '../../src/testing/index.js'
import { type Rig, startRig } from '../helpers.js'
import { startFastRig } from './fast-rig.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

describe('tools.ping', () => {
  it('resolves with the round trip of one server.time call, in ms', async () => {
    rig = await startFastRig()
    rig.emulator.setLatency(30)
    const ms = await rig.portal.tools.ping.make({ requestId: 'ping-1' })
    expect(ms).toBeGreaterThanOrEqual(30)
    const requests = rig.emulator.log.restRequests()
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatchObject({ path: '/rest/server.time', authVia: 'body', status: 200 })
    expect(requests[0]?.headers['x-request-id']).toBe('ping-1')
  })

  it("rejects with the portal's error when server.time fails", async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod(
      'server.time',
      () => {
        throw new EmulatorRestError('ACCESS_DENIED', 'Access denied!', 403)
      },
      { versions: ['v2'] },
    )
    const error = await rig.portal.tools.ping.make().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(SdkError)
    expect(error).toMatchObject({ code: 'ACCESS_DENIED', status: 403 })
  })
})

describe('tools.healthCheck', () => {
  it('true when the portal answers and the token is accepted, refreshing an expired token first', async () => {
    rig = await startFastRig()
    expect(await rig.portal.tools.healthCheck.make({ requestId: 'health' })).toBe(true)
    rig.emulator.expireAccessTokens()
    expect(await rig.portal.tools.healthCheck.make()).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('false, without throwing, when server.time fails at REST level', async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod(
      'server.time',
      () => {
        throw new EmulatorRestError('ACCESS_DENIED', 'Access denied!', 403)
      },
      { versions: ['v2'] },
    )
    expect(await rig.portal.tools.healthCheck.make()).toBe(false)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('false, without throwing, when the token cannot be refreshed', async () => {
    rig = await startFastRig()
    rig.emulator.expireAccessTokens()
    rig.emulator.failOAuth({ error: 'invalid_grant', error_description: 'Refresh token is dead' })
    expect(await rig.portal.tools.healthCheck.make()).toBe(false)
    expect(rig.emulator.log.rejected('invalid_grant')).toHaveLength(1)
    rig.emulator.failOAuth({ error: 'invalid_grant' })
    await expect(rig.portal.tools.ping.make()).rejects.toBeInstanceOf(RefreshTokenError)
  })

  it('false, without throwing, once the instance is destroyed', async () => {
    rig = await startFastRig()
    await rig.portal.destroy()
    expect(await rig.portal.tools.healthCheck.make()).toBe(false)
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })

  it('false when the portal cannot be reached', async () => {
    rig = await startFastRig()
    await rig.emulator.close()
    expect(await rig.portal.tools.healthCheck.make()).toBe(false)
    await expect(rig.portal.tools.ping.make()).rejects.toMatchObject({ code: 'NETWORK_ERROR' })
  })

  it('answers false at its deadline while the client still retries a refused connection', async () => {
    // The default retries of a refused connection wait 1 s, 2 s and 4 s: without a deadline the check waits them out.
    rig = await startRig({ emulator: { rateLimit: false } })
    await rig.emulator.close()
    const failures: unknown[] = []
    const subscriber = (message: unknown): void => void failures.push(message)
    diagnostics.subscribe('undici:client:connectError', subscriber)
    try {
      expect(await rig.portal.tools.healthCheck.make({ timeout: 300 })).toBe(false)
    } finally {
      diagnostics.unsubscribe('undici:client:connectError', subscriber)
    }
    // One attempt was refused; the check did not wait for the second, a second later.
    expect(failures).toHaveLength(1)
  })

  it('refuses a timeout out of range, naming it', async () => {
    rig = await startFastRig()
    await expect(rig.portal.tools.healthCheck.make({ timeout: 0 })).rejects.toThrow(
      'tools.healthCheck: timeout must be an integer from 1 to 300000 ms',
    )
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })
})
