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
