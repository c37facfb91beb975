import { afterEach, describe, expect, it } from 'vitest'
import { AjaxError } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

describe('a refresh whose connection drops', () => {
  it('fails with NETWORK_ERROR naming the OAuth server and the low-level code; the pair held stays usable', async () => {
    rig = await startRig({ client: { refreshRetries: 0 } })
    const before = rig.portal.auth.getParams()
    rig.emulator.dropConnections(1, { server: 'oauth', after: 'headers' })
    const error = await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(AjaxError)
    const code = ((error as AjaxError).cause as { code?: string }).code
    expect(code).toEqual(expect.any(String))
    expect(error).toMatchObject({
      code: 'NETWORK_ERROR',
      message: `token refresh: connection to the OAuth server failed (${code})`,
      request: { method: 'oauth/token' },
    })
    expect(((error as AjaxError).cause as Error).message).toBe(code)
    expect(rig.emulator.log.tokenRequests()).toHaveLength(1)
    expect(rig.portal.auth.getParams().refreshToken).toBe(before.refreshToken)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('is tried again after a transient failure: two requests, the second one rotates the pair', async () => {
    rig = await startRig({ client: { refreshRetries: 1, refreshRetryDelay: 1 } })
    const before = rig.portal.auth.getParams()
    rig.emulator.dropConnections(1, { server: 'oauth', after: 'headers' })
    await rig.portal.auth.refreshAuth()
    expect(rig.emulator.log.tokenRequests()).toHaveLength(2)
    expect(rig.portal.auth.getParams().refreshToken).not.toBe(before.refreshToken)
    expect(rig.portal.auth.getParams().refreshToken).toBe(rig.emulator.currentRefreshToken)
  })
})
