import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** The client sockets this process opens from now on (Node's `net.client.socket` channel), until `stop()`. */
function watchClientSockets(): { sockets: Socket[]; stop: () => void } {
  const sockets: Socket[] = []
  const onSocket = (message: unknown): void => {
    sockets.push((message as { socket: Socket }).socket)
  }
  subscribe('net.client.socket', onSocket)
  return { sockets, stop: () => unsubscribe('net.client.socket', onSocket) }
}

describe("the default adapter's connection pool", () => {
  it('keeps its connections alive between calls, and destroy() closes them', async () => {
    rig = await startRig()
    const watch = watchClientSockets()
    try {
      for (let index = 0; index < 2; index += 1) await rig.portal.actions.v2.call.make({ method: 'profile' })
      // The first two calls may open two connections (the second call can leave before undici has put the first
      // connection back in the pool); from then on, calls one after another go on the connections already open.
      const opened = watch.sockets.length
      expect(opened).toBeGreaterThan(0)
      expect(opened).toBeLessThanOrEqual(2)
      for (let index = 0; index < 5; index += 1) await rig.portal.actions.v2.call.make({ method: 'profile' })
      expect(watch.sockets).toHaveLength(opened)
      expect(watch.sockets.every((socket) => !socket.destroyed)).toBe(true)
      await rig.portal.destroy()
      await expect.poll(() => watch.sockets.every((socket) => socket.destroyed)).toBe(true)
    } finally {
      watch.stop()
    }
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
