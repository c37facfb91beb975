import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, PortalOAuth, type PortalOAuthParams, type RefreshAuthPayload } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock } from '../helpers.js'

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
  options: { store: MemoryStore; now?: () => number },
  persisted: RefreshAuthPayload[],
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

function burst(portal: PortalOAuth, count: number) {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? portal.actions.v2.call.make({ method: 'profile' })
      : portal.actions.v3.call.make({ method: 'tasks.task.list' }),
  )
}

describe('instances sharing one store', () => {
  it('four instances from one expired pair send one refresh request; every call succeeds; one callback', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const portals = Array.from({ length: 4 }, () =>
      client(emulator!, pair, { store, now: clock.now }, persisted),
    )
    clock.advance(3_601_000)
    const results = await Promise.all(portals.flatMap((portal) => burst(portal, 10)))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(persisted).toHaveLength(1)
    const tokens = new Set(portals.map((portal) => portal.auth.getParams().refreshToken))
    expect([...tokens]).toEqual([emulator.currentRefreshToken])
    expect((await store.load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
  })

  it('a pair one instance refreshed is used by another without a refresh of its own', async () => {
    // A refresh also revokes the old pair's access token, as the portal's documentation once said it does.
    emulator = await startPortalEmulator({ revokePreviousAccessToken: true })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const first = client(emulator, pair, { store }, persisted)
    const second = client(emulator, pair, { store }, persisted)
    expect((await second.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await first.auth.refreshAuth()
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    // The second instance's pair is dead now: the portal rejects its access token, its refresh token is spent.
    const results = await Promise.all(burst(second, 6))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(emulator.log.rejected('invalid_token').length).toBeGreaterThan(0)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(emulator.log.rejected('invalid_grant')).toHaveLength(0)
    expect(second.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
  })

  it('the newer pair in the store wins over an older one given to the constructor; taking it is not a refresh', async () => {
    emulator = await startPortalEmulator()
    const old = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const first = client(emulator, old, { store }, persisted)
    await first.auth.refreshAuth()
    const restarted = client(emulator, old, { store }, persisted)
    expect((await restarted.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(restarted.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(persisted).toHaveLength(1)
  })

  it('a store that lost its data is seeded again from the pair an instance holds', async () => {
    emulator = await startPortalEmulator()
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, pair, { store }, persisted)
    await portal.actions.v2.call.make({ method: 'profile' })
    await store.remove(pair.memberId)
    await portal.auth.refreshAuth()
    expect((await store.load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
  })
})

describe('a leaky bucket shared by instances', () => {
  it('two instances pacing under one store: the portal rejects nothing', async () => {
    const bucket = { burstLimit: 5, drainRate: 10 }
    emulator = await startPortalEmulator({ rateLimit: bucket })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const portals = [0, 1].map(() => {
      const portal = client(emulator!, pair, { store }, persisted)
      portal.setRestrictionManagerParams({ rateLimit: bucket })
      return portal
    })
    const results = await Promise.all(portals.flatMap((portal) => burst(portal, 12)))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    expect(emulator.log.restRequests()).toHaveLength(24)
  })

  it('the same two instances each pacing alone overflow the portal', async () => {
    const bucket = { burstLimit: 5, drainRate: 10 }
    emulator = await startPortalEmulator({ rateLimit: bucket })
    const pair = emulator.issueAuthParams()
    const persisted: RefreshAuthPayload[] = []
    const portals = [0, 1].map(() => {
      const portal = client(emulator!, pair, { store: new MemoryStore() }, persisted)
      portal.setRestrictionManagerParams({ rateLimit: bucket, maxRetries: 10, retryDelay: 50 })
      return portal
    })
    await Promise.all(portals.flatMap((portal) => burst(portal, 12)))
    expect(emulator.log.rejected('QUERY_LIMIT_EXCEEDED').length).toBeGreaterThan(0)
  })
})
