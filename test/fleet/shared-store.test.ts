import { afterEach, describe, expect, it } from 'vitest'
import {
  type DeadPairReason,
  MemoryStore,
  type PortalOAuth,
  type PortalOAuthParams,
  type RefreshAuthPayload,
  type SharedBucketSettings,
  type SlotAnswer,
} from '../../src/index.js'
import {
  type PortalEmulator,
  type PortalEmulatorOptions,
  startPortalEmulator,
} from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock } from '../helpers.js'
import { createStoreClients } from './store-clients.js'

let emulator: PortalEmulator | undefined
const clients = createStoreClients()
const client = clients.client
afterEach(async () => {
  await clients.destroyAll()
  await emulator?.close()
  emulator = undefined
})

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
    const logger = createMemoryLogger()
    const restarted = client(emulator, old, { store, logger }, persisted)
    expect((await restarted.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(restarted.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(persisted).toHaveLength(1)
    const stored = restarted.auth.getParams()
    expect(logger.lines.filter((line) => line.level === 'info')).toEqual([
      { level: 'info', message: 'token pair taken from the store', context: { expires: stored.expires } },
    ])
  })

  it('a store that lost its data gets the pair back at the next call, through the shared bucket', async () => {
    emulator = await startPortalEmulator()
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const portal = client(emulator, pair, { store }, [])
    await portal.actions.v2.call.make({ method: 'profile' })
    store.clear()
    // 50 ms: past the slots leased by the first call, so that this one asks the store, which says it holds none.
    await new Promise((resolve) => setTimeout(resolve, 50))
    await portal.actions.v2.call.make({ method: 'profile' })
    await expect.poll(() => store.load(pair.memberId)).toMatchObject({ refreshToken: pair.refreshToken })
    expect(emulator.log.refreshRequests()).toHaveLength(0)
  })

  it('a store that lost its data is seeded again from the pair an instance holds', async () => {
    emulator = await startPortalEmulator()
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, pair, { store }, persisted)
    await portal.actions.v2.call.make({ method: 'profile' })
    store.clear()
    await portal.auth.refreshAuth()
    expect((await store.load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
  })

  it("B called, A refreshed, then the portal expired every token: B's next call gets a working pair and succeeds", async () => {
    emulator = await startPortalEmulator()
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const a = client(emulator, pair, { store }, persisted)
    const b = client(emulator, pair, { store }, persisted)
    expect((await b.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await a.auth.refreshAuth()
    emulator.expireAccessTokens()
    const result = await b.actions.v2.call.make({ method: 'profile' })
    expect(result.isSuccess).toBe(true)
    // B's pair works on the portal now: the last request it sent was answered.
    expect(emulator.log.restRequests().at(-1)).toMatchObject({
      status: 200,
      token: b.auth.getParams().accessToken,
    })
    expect(b.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
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

/**
 * A store whose backend fails on demand. A test double: neither the emulator nor `MemoryStore` can make a store's
 * backend unreachable (short of killing a Redis server mid-call), and these paths are about what the client does then.
 */
type StoreMethod = 'load' | 'save' | 'lock' | 'unlock' | 'takeSlot' | 'markDead'

class FailingStore extends MemoryStore {
  /** Methods that throw, with how many more times each does. */
  readonly failing = new Map<StoreMethod, number>()
  readonly calls: string[] = []

  #fail(method: StoreMethod): void {
    this.calls.push(method)
    const left = this.failing.get(method) ?? 0
    if (left <= 0) return
    this.failing.set(method, left - 1)
    throw new Error(`backend down (${method})`)
  }

  override async load(memberId: string): Promise<PortalOAuthParams | null> {
    this.#fail('load')
    return super.load(memberId)
  }

  override async save(params: PortalOAuthParams): Promise<PortalOAuthParams> {
    this.#fail('save')
    return super.save(params)
  }

  override async lock(memberId: string, ttlMs: number): Promise<string | null> {
    this.#fail('lock')
    return super.lock(memberId, ttlMs)
  }

  override async markDead(memberId: string, refreshToken: string, reason: DeadPairReason): Promise<void> {
    this.#fail('markDead')
    return super.markDead(memberId, refreshToken, reason)
  }

  override async unlock(memberId: string, owner: string): Promise<boolean> {
    this.#fail('unlock')
    return super.unlock(memberId, owner)
  }

  override async takeSlot(
    memberId: string,
    bucket: SharedBucketSettings,
    want?: number,
  ): Promise<SlotAnswer> {
    this.#fail('takeSlot')
    return super.takeSlot(memberId, bucket, want)
  }
}

describe('a store that fails', () => {
  async function failingRig(
    options: { refreshTimeout?: number; refreshRetries?: number; lockTtl?: number } = {},
    emulatorOptions: PortalEmulatorOptions = {},
  ) {
    emulator = await startPortalEmulator(emulatorOptions)
    const pair = emulator.issueAuthParams()
    const store = new FailingStore()
    const logger = createMemoryLogger()
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, pair, { logger, store, ...options }, persisted)
    const lines = (level: 'error' | 'info') =>
      logger.lines.filter((line) => line.level === level).map((line) => line.message)
    const errors = () => lines('error')
    return { emulator, pair, store, portal, persisted, errors, infos: () => lines('info') }
  }

  it('the shared bucket fails: the instance paces with its own bucket, logs it once, and logs its return', async () => {
    const bucket = { burstLimit: 2, drainRate: 4 }
    const { emulator, store, portal, errors, infos } = await failingRig({}, { rateLimit: bucket })
    portal.setRestrictionManagerParams({ rateLimit: bucket })
    store.failing.set('takeSlot', 4)
    const results = await Promise.all(
      Array.from({ length: 4 }, () => portal.actions.v2.call.make({ method: 'profile' })),
    )
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    expect(errors()).toEqual(['shared leaky bucket unreachable; pacing locally until it answers'])
    expect(infos()).not.toContain('shared leaky bucket answers again')
    // Both buckets drain; then the store answers again.
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(infos()).toContain('shared leaky bucket answers again')
    expect(store.calls.filter((call) => call === 'takeSlot')).toHaveLength(5)
    // Said once per return, not at every answer; a second outage is logged again.
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(infos().filter((line) => line === 'shared leaky bucket answers again')).toHaveLength(1)
    store.failing.set('takeSlot', 1)
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(errors()).toHaveLength(2)
  })

  it('slots leased by one round trip serve the next calls while fresh; a lease older than 40 ms is not used', async () => {
    const { store, portal } = await failingRig()
    const roundTrips = () => store.calls.filter((call) => call === 'takeSlot').length
    for (let call = 0; call < 6; call += 1) await portal.actions.v2.call.make({ method: 'profile' })
    // One round trip grants at most 4 slots: 6 calls take 2 at least, and fewer than 6 when the lease is used
    // (leaving slots leased for later).
    expect(roundTrips()).toBeGreaterThanOrEqual(2)
    expect(roundTrips()).toBeLessThan(6)
    const before = roundTrips()
    await new Promise((resolve) => setTimeout(resolve, 100))
    await portal.actions.v2.call.make({ method: 'profile' })
    // Whatever was leased before is stale now: this call asks the store.
    expect(roundTrips()).toBe(before + 1)
  })

  it('reading the pair fails: the call goes on with the pair held, the failure is logged, the next call reads again', async () => {
    const { store, portal, errors } = await failingRig()
    store.failing.set('load', 1)
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(errors()).toEqual(['token store failed reading the pair'])
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(store.calls.filter((call) => call === 'load')).toHaveLength(2)
  })

  it('taking the lock fails: the attempt is tried again after a backoff; one refresh request, one callback', async () => {
    const { emulator, store, portal, persisted } = await failingRig()
    await portal.actions.v2.call.make({ method: 'profile' })
    store.failing.set('lock', 1)
    const data = await portal.auth.refreshAuth()
    expect(data.refresh_token).toBe(emulator.currentRefreshToken)
    expect(store.calls.filter((call) => call === 'lock')).toHaveLength(2)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(persisted).toHaveLength(1)
  })

  it('saving the new pair fails once, unlocking fails: the save is asked again, the pair in use, persisted and stored; both failures logged', async () => {
    const { emulator, store, portal, persisted, errors } = await failingRig()
    await portal.actions.v2.call.make({ method: 'profile' })
    store.failing.set('save', 1)
    store.failing.set('unlock', 1)
    const data = await portal.auth.refreshAuth()
    expect(data.refresh_token).toBe(emulator.currentRefreshToken)
    expect(persisted.map((payload) => payload.b24OAuthParams.refreshToken)).toEqual([
      emulator.currentRefreshToken,
    ])
    expect(errors()).toEqual([
      'token store failed saving the new pair (asking again; the lock is kept meanwhile)',
      'token store failed unlocking',
    ])
    expect(store.calls.filter((call) => call === 'save').length).toBeGreaterThanOrEqual(2)
    expect((await store.load(emulator.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('saving the new pair keeps failing: the lock is kept until its TTL, so no other instance refreshes from the old pair', async () => {
    // The save is asked again for half the lock's TTL (1.25 s), within the attempt's 2 s.
    const { emulator, store, portal, errors } = await failingRig({ refreshTimeout: 2_000, lockTtl: 2_500 })
    await portal.actions.v2.call.make({ method: 'profile' })
    store.failing.set('save', 1_000)
    await portal.auth.refreshAuth()
    expect(errors()).toEqual([
      'token store failed saving the new pair (asking again; the lock is kept meanwhile)',
    ])
    // Not released: another instance asking for the lock now is refused.
    expect(store.calls).not.toContain('unlock')
    expect(await store.lock(emulator.memberId, 1_000)).toBeNull()
    expect(emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('saving the new pair fails under the lock, then the store answers: it is saved in the background and the lock given back; another instance takes that pair', async () => {
    // The save is asked twice within the attempt (at 0 and 250 ms of its 360); the lock would last 4 s. The refresh
    // revokes the old access token, so the other instance needs the new pair for its call.
    const { emulator, pair, store, portal, infos } = await failingRig(
      { refreshTimeout: 400, lockTtl: 4_000 },
      { revokePreviousAccessToken: true },
    )
    await portal.actions.v2.call.make({ method: 'profile' })
    store.failing.set('save', 3)
    await portal.auth.refreshAuth()
    const refreshed = portal.auth.getParams().refreshToken
    // The instance makes no call: the pair gets into the store by itself, well before the lock's TTL.
    await expect.poll(async () => (await store.load(pair.memberId))?.refreshToken).toBe(refreshed)
    expect(infos()).toContain('token store took the new pair at last; the lock kept for it is given back')
    const other = client(emulator, pair, { store, refreshTimeout: 400 })
    expect((await other.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(other.auth.getParams().refreshToken).toBe(refreshed)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(emulator.log.rejected('invalid_grant')).toHaveLength(0)
  })

  it('destroy() right after a refresh whose pair the store did not take saves it once more and gives the lock back', async () => {
    const { emulator, pair, store, portal } = await failingRig(
      { refreshTimeout: 400, lockTtl: 4_000 },
      { revokePreviousAccessToken: true },
    )
    await portal.actions.v2.call.make({ method: 'profile' })
    store.failing.set('save', 2)
    await portal.auth.refreshAuth()
    const refreshed = portal.auth.getParams().refreshToken
    await portal.destroy()
    expect((await store.load(pair.memberId))?.refreshToken).toBe(refreshed)
    expect(store.calls).toContain('unlock')
    // Another instance on the old pair takes the saved one: nothing is refreshed from the spent refresh token.
    const other = client(emulator, pair, { store, refreshTimeout: 400 })
    expect((await other.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(other.auth.getParams().refreshToken).toBe(refreshed)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(emulator.log.rejected('invalid_grant')).toHaveLength(0)
  })

  it('putting the pair back into a store that lost it fails: the call succeeds, the failure is logged', async () => {
    const { emulator, store, portal, errors } = await failingRig()
    await portal.actions.v2.call.make({ method: 'profile' })
    store.clear()
    store.failing.set('save', 1)
    // 50 ms: past the slots leased by the first call, so that this one asks the store, which says it holds none.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await expect.poll(errors).toEqual(['token store failed putting the pair back'])
    expect(await store.load(emulator.memberId)).toBeNull()
    expect(emulator.log.refreshRequests()).toHaveLength(0)
  })

  it('recording a dead pair fails: the caller still gets the OAuth error, the failure is logged', async () => {
    const { emulator, store, portal, errors } = await failingRig({ refreshRetries: 0 })
    await portal.actions.v2.call.make({ method: 'profile' })
    store.failing.set('markDead', 1)
    emulator.failOAuth({ error: 'invalid_grant', error_description: 'Refresh token is dead' })
    await expect(portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'invalid_grant' })
    expect(store.calls).toContain('markDead')
    expect(errors()).toContain('token store failed recording the dead pair')
    expect(emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('saving a replaced pair fails: the replaced pair is used, the failure logged', async () => {
    const { emulator, store, portal, errors } = await failingRig()
    await portal.actions.v2.call.make({ method: 'profile' })
    const next = emulator.issueAuthParams()
    store.failing.set('save', 1)
    portal.setAuthOptions(next)
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(emulator.log.restRequests().at(-1)?.token).toBe(next.accessToken)
    expect(errors()).toEqual(['token store failed saving the replaced pair'])
  })

  it('another instance holds the lock past the refresh timeout: the attempt fails and, abandoned, sends nothing later', async () => {
    const { emulator, pair, store, portal } = await failingRig({ refreshTimeout: 100, refreshRetries: 0 })
    await portal.actions.v2.call.make({ method: 'profile' })
    // A custom refresh ignores the attempt's signal, as an application's may: only the client can stop it being called.
    let customCalls = 0
    portal.setCustomRefreshAuth(async () => {
      customCalls += 1
      const issued = emulator.issueAuthParams()
      return {
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        expires_in: 3600,
      } as never
    })
    const other = await store.lock(pair.memberId, 60_000)
    await expect(portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' })
    await store.unlock(pair.memberId, other!)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(customCalls).toBe(0)
    expect(emulator.log.refreshRequests()).toHaveLength(0)
    expect(portal.tokenState).toBe('valid')
  })
})
