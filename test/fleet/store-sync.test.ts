import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, PortalOAuth, type PortalOAuthParams, type RefreshAuthPayload } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock } from '../helpers.js'

// The first look an instance takes at a shared store, and which pair wins: a refresh token rotates on every use, so
// an instance that keeps an older pair than the newest one spends a dead refresh token (a second refresh request
// that fails, and a pair that dies).

let emulator: PortalEmulator | undefined
const clients: PortalOAuth[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.destroy()))
  await emulator?.close()
  emulator = undefined
})

function client(
  target: PortalEmulator,
  pair: PortalOAuthParams,
  options: { store?: MemoryStore; now: () => number },
  persisted: RefreshAuthPayload[] = [],
): PortalOAuth {
  const portal = new PortalOAuth(
    pair,
    { clientId: target.clientId, clientSecret: target.clientSecret },
    { logger: createMemoryLogger(), ...options },
  )
  portal.setCallbackRefreshAuth((payload) => {
    persisted.push(payload)
  })
  clients.push(portal)
  return portal
}

/** A pair refreshed away from the store (another deployment, say), so that the store still holds `pair`. */
async function refreshedWithoutStore(target: PortalEmulator, pair: PortalOAuthParams, now: () => number) {
  const loner = client(target, pair, { now })
  await loner.auth.refreshAuth()
  return loner.auth.getParams()
}

describe('the first look at a shared store', () => {
  it("a pair given to the constructor that is newer than the store's is kept and put into the store; nothing is refreshed", async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now, revokePreviousAccessToken: true })
    const older = emulator.issueAuthParams()
    const store = new MemoryStore()
    await store.save(older)
    clock.advance(10_000)
    const newer = await refreshedWithoutStore(emulator, older, clock.now)
    expect(newer.expires).toBeGreaterThan(older.expires)
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, newer, { store, now: clock.now }, persisted)
    const result = await portal.actions.v2.call.make({ method: 'profile' })
    expect(result.isSuccess).toBe(true)
    // Only the refresh made away from the store; the older pair's revoked token was never sent.
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(emulator.log.rejected('invalid_token')).toHaveLength(0)
    expect(emulator.log.restRequests().map((entry) => entry.token)).toEqual([newer.accessToken])
    expect(portal.auth.getParams().refreshToken).toBe(newer.refreshToken)
    expect((await store.load(older.memberId))?.refreshToken).toBe(newer.refreshToken)
    expect(persisted).toHaveLength(0)
  })

  it('a newer pair in the store is taken before the first request: the older one given to the constructor is never sent', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now, revokePreviousAccessToken: true })
    const older = emulator.issueAuthParams()
    const store = new MemoryStore()
    clock.advance(10_000)
    const newer = await refreshedWithoutStore(emulator, older, clock.now)
    await store.save(newer)
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, older, { store, now: clock.now }, persisted)
    const result = await portal.actions.v3.call.make({ method: 'tasks.task.list' })
    expect(result.isSuccess).toBe(true)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(emulator.log.rejected('invalid_token')).toHaveLength(0)
    expect(emulator.log.restRequests().map((entry) => entry.token)).toEqual([newer.accessToken])
    expect(portal.auth.getParams().refreshToken).toBe(newer.refreshToken)
    // Taking a pair from the store is not a refresh: the callback does not run for it.
    expect(persisted).toHaveLength(0)
  })
})
