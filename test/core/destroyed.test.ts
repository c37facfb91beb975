import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** Lets anything the client might still send arrive at the emulator before the log is read. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100))

describe('an instance after destroy()', () => {
  it('refreshAuth() refuses with JSSDK_CLIENT_DESTROYED and no refresh request is sent, also before any call', async () => {
    rig = await startRig()
    const persisted: unknown[] = []
    rig.portal.setCallbackRefreshAuth((payload) => {
      persisted.push(payload)
    })
    await rig.portal.destroy()
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'JSSDK_CLIENT_DESTROYED' })
    await settle()
    expect(rig.emulator.log.refreshRequests()).toHaveLength(0)
    expect(persisted).toHaveLength(0)
  })

  it('initIsAdmin() refuses with JSSDK_CLIENT_DESTROYED and sends nothing', async () => {
    rig = await startRig()
    await rig.portal.destroy()
    await expect(rig.portal.auth.initIsAdmin()).rejects.toMatchObject({ code: 'JSSDK_CLIENT_DESTROYED' })
    await settle()
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })

  it('setAuthOptions() refuses with JSSDK_CLIENT_DESTROYED and the pair held stays', async () => {
    rig = await startRig()
    const before = rig.portal.auth.getParams()
    await rig.portal.destroy()
    const next = { ...rig.emulator.issueAuthParams() }
    expect(() => rig.portal.setAuthOptions(next)).toThrow(
      expect.objectContaining({ code: 'JSSDK_CLIENT_DESTROYED' }),
    )
    expect(rig.portal.auth.getParams().refreshToken).toBe(before.refreshToken)
  })

  it('a call waiting out a retry backoff when destroy() comes rejects with JSSDK_CLIENT_DESTROYED and is not sent again', async () => {
    rig = await startRig({ client: { restrictionParams: { retryDelay: 1_000 } } })
    rig.emulator.dropConnections(1, { method: 'profile' })
    const call = rig.portal.actions.v2.call.make({ method: 'profile' }).then(
      () => 'resolved',
      (error: unknown) => error,
    )
    // Polled every 50 ms, well within the 1 s backoff; the first request may take over a second on a loaded machine.
    await expect.poll(() => rig.emulator.log.restRequests().length, { timeout: 10_000 }).toBe(1)
    await rig.portal.destroy()
    expect(await call).toMatchObject({ code: 'JSSDK_CLIENT_DESTROYED' })
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('a call waiting for a refresh the OAuth server holds rejects at once, in the words of every later call', async () => {
    rig = await startRig({ client: { refreshTimeout: 200, refreshRetries: 0 } })
    rig.emulator.expireAccessTokens()
    rig.emulator.holdRequests(1, { server: 'oauth' })
    const waiting = rig.portal.actions.v2.call.make({ method: 'profile' }).catch((error: unknown) => error)
    await rig.emulator.waitForHeld(1)
    const closed = rig.portal.destroy()
    const expected = {
      name: 'SdkError',
      code: 'JSSDK_CLIENT_DESTROYED',
      message: 'PortalOAuth was destroyed; create a new instance to make calls',
    }
    expect(await waiting).toMatchObject(expected)
    rig.emulator.releaseHeldRequests()
    await closed
    await expect(rig.portal.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject(expected)
  })
})
