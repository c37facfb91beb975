import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryLogger, type Rig, startRig } from '../helpers.js'

// What a timed-out refresh and a hung refresh callback say, to the caller and in the log: the application decides from
// these whether the pair was persisted.

let rig: Rig
afterEach(async () => {
  rig?.emulator.releaseHeldRequests()
  await rig?.close()
})

describe('the words of a bounded wait', () => {
  it('a refresh with no answer within refreshTimeout: REQUEST_TIMEOUT naming the time, and an error line', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, refreshTimeout: 100, refreshRetries: 0 } })
    rig.emulator.holdRequests(1, { server: 'oauth' })
    const error = await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({
      name: 'AjaxError',
      code: 'REQUEST_TIMEOUT',
      message: 'token refresh: no answer within 100 ms',
      request: { method: 'oauth/token' },
    })
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toContain(
      'token refresh: no answer within 100 ms; the attempt is abandoned',
    )
  })

  it('a callback that does not settle within callbackTimeout: JSSDK_CALLBACK_TIMEOUT naming the time, and an error line', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, callbackTimeout: 100 } })
    rig.portal.setCallbackRefreshAuth(() => new Promise<void>(() => {}))
    const error = await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ name: 'SdkError', code: 'JSSDK_CALLBACK_TIMEOUT' })
    expect((error as Error).message).toBe(
      'refresh callback did not settle within 100 ms; the new token pair is in use but may not be persisted',
    )
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toContain(
      'refresh callback did not settle within 100 ms; the new token pair is kept in memory but may not be persisted',
    )
    // The new pair is in use all the same.
    expect(rig.portal.auth.getParams().refreshToken).toBe(rig.emulator.currentRefreshToken)
  })
})
