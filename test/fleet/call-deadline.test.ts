import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createTestClock } from '../helpers.js'
import { createStoreClients } from './store-clients.js'

let emulator: PortalEmulator | undefined
const clients = createStoreClients()
afterEach(async () => {
  await clients.destroyAll()
  await emulator?.close()
  emulator = undefined
})

/** What a wait for a refresh that ended at the call's deadline says: how long it had, what was left. */
const LEFT = /^token refresh: no new access token within (\d+) ms, what the call had left of its timeout/

/** An instance on a shared store whose refresh lock another instance holds (for a minute). */
async function lockedRig() {
  const clock = createTestClock()
  emulator = await startPortalEmulator({ now: clock.now })
  const pair = emulator.issueAuthParams()
  const store = new MemoryStore()
  await store.save(pair)
  const portal = clients.client(emulator, pair, { store, now: clock.now })
  const owner = await store.lock(pair.memberId, 60_000)
  return { emulator, pair, store, portal, clock, owner: owner! }
}

describe("a call's timeout is its deadline, the wait for the refresh lock included", () => {
  it('another instance holds the lock: the call waits within its timeout, not the refresh timeout, and sends nothing; once the lock is given back the next call refreshes', async () => {
    const { emulator, pair, store, portal, clock, owner } = await lockedRig()
    clock.advance(3_601_000)
    const error = await portal.actions.v2.call
      .make({ method: 'profile', timeout: 300 })
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ name: 'AjaxError', code: 'REQUEST_TIMEOUT' })
    expect((error as Error).message).toMatch(LEFT)
    expect(Number(LEFT.exec((error as Error).message)?.[1])).toBeLessThanOrEqual(300)
    expect(emulator.log.refreshRequests()).toHaveLength(0)
    expect(emulator.log.restRequests()).toHaveLength(0)
    // The refresh goes on for the others: the lock given back, the next call is answered, one refresh request.
    await store.unlock(pair.memberId, owner)
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('a token rejected after a slow answer: the wait for the refresh gets what is left of the timeout, not all of it again', async () => {
    const { emulator, pair, store, portal, owner } = await lockedRig()
    // The portal takes 400 ms of the call's 600 to answer that the token expired.
    emulator.expireAccessTokens()
    emulator.delayRequests(400, 1, { server: 'portal' })
    const error = await portal.actions.v2.call
      .make({ method: 'profile', timeout: 600 })
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ name: 'AjaxError', code: 'REQUEST_TIMEOUT' })
    const waited = Number(LEFT.exec((error as Error).message)?.[1])
    expect(waited).toBeGreaterThanOrEqual(0)
    expect(waited).toBeLessThanOrEqual(200)
    expect(emulator.log.restRequests()).toHaveLength(1)
    expect(emulator.log.refreshRequests()).toHaveLength(0)
    await store.unlock(pair.memberId, owner)
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })
})
