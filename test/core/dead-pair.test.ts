import { afterEach, describe, expect, it } from 'vitest'
import { RefreshTokenError } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  rig?.emulator.releaseHeldRequests()
  await rig?.close()
})

describe('a pair that dies while a call is in flight', () => {
  it('the call, answered expired_token afterwards, rejects with the same RefreshTokenError and is not sent again', async () => {
    rig = await startRig()
    rig.emulator.holdRequests(1, { method: 'profile' })
    const inFlight = rig.portal.actions.v2.call.make({ method: 'profile' }).then(
      (result) => result,
      (error: unknown) => error,
    )
    await rig.emulator.waitForHeld(1)
    rig.emulator.expireAccessTokens()
    rig.emulator.failOAuth({ error: 'invalid_grant', error_description: 'The refresh token is unknown' })
    const refused = await rig.portal.auth.refreshAuth().catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(RefreshTokenError)
    expect(rig.portal.tokenState).toBe('dead')
    rig.emulator.releaseHeldRequests()
    expect(await inFlight).toBe(refused)
    expect(rig.emulator.log.rejected('expired_token')).toHaveLength(1)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })
})
