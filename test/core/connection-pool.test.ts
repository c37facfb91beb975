import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** Open TCP sockets of this process (the emulator's ends included: they close when the client closes its own). */
function openSockets(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length
}

describe("the default adapter's connection pool", () => {
  it('keeps its connections alive between calls, and destroy() closes them', async () => {
    rig = await startRig()
    const before = openSockets()
    for (let index = 0; index < 5; index += 1) await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(openSockets()).toBeGreaterThan(before)
    await rig.portal.destroy()
    await expect.poll(openSockets).toBe(before)
  })

  it('a call cancelled while it waits for the busy connection is never sent, and the connection stays open', async () => {
    // The connections the emulator (in this process) accepts, and the requests undici has taken in (queued for a
    // connection or sent).
    let accepted = 0
    let taken = 0
    const onAccepted = (): void => {
      accepted += 1
    }
    const onTaken = (): void => {
      taken += 1
    }
    subscribe('net.server.socket', onAccepted)
    subscribe('undici:request:create', onTaken)
    rig = await startRig({ client: { httpOptions: { connections: 1 } } })
    rig.emulator.holdRequests(1, { method: 'profile' })
    const first = rig.portal.actions.v2.call.make({ method: 'profile' })
    await rig.emulator.waitForHeld(1)
    const controller = new AbortController()
    const second = rig.portal.actions.v2.call.make({ method: 'app.info', signal: controller.signal })
    await expect.poll(() => taken).toBe(2)
    controller.abort(new Error('user left'))
    await expect(second).rejects.toMatchObject({ code: 'REQUEST_ABORTED' })
    rig.emulator.releaseHeldRequests()
    expect((await first).isSuccess).toBe(true)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    unsubscribe('net.server.socket', onAccepted)
    unsubscribe('undici:request:create', onTaken)
    expect(rig.emulator.log.entries.map((entry) => entry.restMethod)).toStrictEqual(['profile', 'profile'])
    expect(accepted).toBe(1)
  })
})

describe('an OAuth answer without a body', () => {
  it.each([204, 304])(
    'HTTP %i: INVALID_RESPONSE naming the status, the pair held stays usable',
    async (status) => {
      rig = await startRig({ client: { refreshRetries: 0 } })
      rig.emulator.failTokenRequests({ status, body: '' })
      await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
        code: 'INVALID_RESPONSE',
        status,
        message: `token refresh: the OAuth server answered HTTP ${status} without a token or an OAuth error`,
      })
      expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    },
  )
})
