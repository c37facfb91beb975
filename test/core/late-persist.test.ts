import { afterEach, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

// A refresh answer that arrives after its attempt timed out is committed and handed to the refresh callback outside
// the token machine. destroy() must still wait for that callback, within callbackTimeout.

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** A rig whose next refresh answer comes 150 ms late, past a 100 ms refresh timeout, after a warm-up call. */
async function lateAnswerRig(callbackTimeout: number): Promise<Rig> {
  const started = await startRig({ client: { refreshTimeout: 100, refreshRetries: 1, callbackTimeout } })
  expect((await started.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  started.emulator.delayRequests(150, 1, { server: 'oauth' })
  return started
}

describe('the callback of a late refresh answer', () => {
  it('destroy() waits for it to finish, so the rotated pair is persisted before the instance is gone', async () => {
    rig = await lateAnswerRig(5_000)
    const persisted: PortalOAuthParams[] = []
    let callbackStarted!: () => void
    const started = new Promise<void>((resolve) => {
      callbackStarted = resolve
    })
    rig.portal.setCallbackRefreshAuth(async ({ b24OAuthParams }) => {
      callbackStarted()
      await new Promise((resolve) => setTimeout(resolve, 200))
      persisted.push(b24OAuthParams)
    })
    await rig.portal.auth.refreshAuth().catch(() => undefined)
    await started
    await rig.portal.destroy()
    expect(persisted.map((pair) => pair.refreshToken)).toEqual([rig.emulator.currentRefreshToken])
  })

  it('destroy() ends at callbackTimeout when that callback never settles', async () => {
    rig = await lateAnswerRig(200)
    let callbackStarted!: () => void
    const started = new Promise<void>((resolve) => {
      callbackStarted = resolve
    })
    rig.portal.setCallbackRefreshAuth(() => {
      callbackStarted()
      return new Promise<void>(() => {})
    })
    await rig.portal.auth.refreshAuth().catch(() => undefined)
    await started
    await rig.portal.destroy()
    expect(rig.portal.auth.getParams().refreshToken).toBe(rig.emulator.currentRefreshToken)
  })
})
