import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, type PortalOAuthParams, type RefreshAuthPayload } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock } from '../helpers.js'
import { createStoreClients } from './store-clients.js'

// The first look an instance takes at a shared store, and which pair wins: a refresh token rotates on every use, so
// an instance that keeps an older pair than the newest one spends a dead refresh token (a second refresh request
// that fails, and a pair that dies).

let emulator: PortalEmulator | undefined
const clients = createStoreClients()
const client = clients.client
afterEach(async () => {
  await clients.destroyAll()
  await emulator?.close()
  emulator = undefined
})

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

/**
 * A store whose first `load` answers only when the test lets it go, with what it held when asked: a slow Redis (the
 * emulator has no store to slow down).
 */
class SlowFirstLoad extends MemoryStore {
  #release: (() => void) | null = null
  readonly #gate = new Promise<void>((resolve) => {
    this.#release = resolve
  })
  #loads = 0

  override async load(memberId: string): Promise<PortalOAuthParams | null> {
    this.#loads += 1
    // Read now, answered later: the answer is what the store held when the read reached it.
    const held = await super.load(memberId)
    if (this.#loads === 1) await this.#gate
    return held
  }

  /** Lets the first `load` answer. */
  release(): void {
    this.#release?.()
  }
}

describe('a pair taken from the store is a secret like any other', () => {
  it('its tokens are redacted from the log', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const older = emulator.issueAuthParams()
    clock.advance(10_000)
    const stored = await refreshedWithoutStore(emulator, older, clock.now)
    const store = new MemoryStore()
    await store.save(stored)
    const logger = createMemoryLogger()
    const portal = client(emulator, older, { logger, store, now: clock.now, refreshRetries: 0 })
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(portal.auth.getParams().refreshToken).toBe(stored.refreshToken)
    // An application's refresh that puts the token it was given into its error, as careless code does.
    portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      throw new Error(`refused ${refreshToken} (access ${portal.auth.getParams().accessToken})`)
    })
    await portal.auth.refreshAuth().catch(() => undefined)
    const written = JSON.stringify(logger.lines)
    expect(written).toContain('[redacted]')
    for (const secret of [stored.refreshToken, stored.accessToken]) expect(written).not.toContain(secret)
  })
})

describe('setAuthOptions() while the first look at the store is under way', () => {
  it('the pair given wins over the one the store answers with afterwards', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const older = emulator.issueAuthParams()
    clock.advance(10_000)
    const stored = await refreshedWithoutStore(emulator, older, clock.now)
    const store = new SlowFirstLoad()
    await store.save(stored)
    const portal = client(emulator, older, { store, now: clock.now })
    const call = portal.actions.v2.call.make({ method: 'profile' })
    // An install event brings a brand-new pair while the store has not answered yet.
    const installed = emulator.issueAuthParams()
    await new Promise((resolve) => setImmediate(resolve))
    portal.setAuthOptions(installed)
    store.release()
    expect((await call).isSuccess).toBe(true)
    expect(portal.auth.getParams().refreshToken).toBe(installed.refreshToken)
    expect(emulator.log.restRequests().at(-1)?.token).toBe(installed.accessToken)
  })
})

describe('refreshAuth() as the first thing an instance does', () => {
  it('takes the newer pair of the store first, then refreshes that one: one request, with its refresh token', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const older = emulator.issueAuthParams()
    clock.advance(10_000)
    const newer = await refreshedWithoutStore(emulator, older, clock.now)
    const store = new MemoryStore()
    await store.save(newer)
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, older, { store, now: clock.now }, persisted)
    await portal.auth.refreshAuth()
    const requests = emulator.log.refreshRequests()
    expect(requests.map((entry) => entry.token)).toEqual([older.refreshToken, newer.refreshToken])
    expect(requests.map((entry) => entry.status)).toEqual([200, 200])
    expect(portal.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    expect(persisted).toHaveLength(1)
  })
})

describe('an instance waiting on the refresh lock another one holds', () => {
  it('takes the pair the holder saves within the same attempt: no retry, no refresh of its own, no error', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const holder = client(emulator, pair, { store, now: clock.now }, persisted)
    const waiterLog = createMemoryLogger()
    const waiter = client(emulator, pair, { logger: waiterLog, store, now: clock.now, refreshRetries: 0 })
    emulator.holdRequests(1, { server: 'oauth' })
    clock.advance(3_601_000)
    const first = holder.actions.v2.call.make({ method: 'profile' })
    await emulator.waitForHeld(1)
    const second = waiter.actions.v3.call.make({ method: 'tasks.task.list' })
    // The waiter is in its refresh attempt, waiting for the lock, while the holder's request is held.
    await expect.poll(() => waiter.tokenState).toBe('refreshing')
    emulator.releaseHeldRequests()
    expect((await first).isSuccess).toBe(true)
    expect((await second).isSuccess).toBe(true)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(waiter.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    expect(waiterLog.lines.filter((line) => line.level === 'error')).toEqual([])
    expect(persisted).toHaveLength(1)
  })

  it('when the holder gives the lock back without a pair (its refresh failed), takes the lock and refreshes itself', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const options = { store, now: clock.now, refreshRetries: 0 }
    const holder = client(emulator, pair, options)
    const waiter = client(emulator, pair, options)
    emulator.holdRequests(1, { server: 'oauth' })
    emulator.failOAuth({ error: 'server_error', status: 500 })
    clock.advance(3_601_000)
    const first = holder.actions.v2.call.make({ method: 'profile' }).catch((error: unknown) => error)
    await emulator.waitForHeld(1)
    const second = waiter.actions.v2.call.make({ method: 'profile' })
    await expect.poll(() => waiter.tokenState).toBe('refreshing')
    emulator.releaseHeldRequests()
    expect(await first).toMatchObject({ code: 'server_error' })
    expect((await second).isSuccess).toBe(true)
    expect(emulator.log.refreshRequests()).toHaveLength(2)
    expect(waiter.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    expect((await store.load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
  })
})

describe('a store restored from an older backup', () => {
  it('an instance holding the spent pair dies on it, then lives again on the pair the other one puts back', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const fresh = client(emulator, pair, { store, now: clock.now })
    const stale = client(emulator, pair, { store, now: clock.now })
    await Promise.all([fresh, stale].map((portal) => portal.actions.v2.call.make({ method: 'profile' })))
    clock.advance(600_000)
    await fresh.auth.refreshAuth()
    // The store forgets, and is restored from an older backup: it holds the first pair, whose refresh token is spent.
    store.clear()
    await store.save(pair)
    // The first pair's hour is over; the one `fresh` got ten minutes later has ten minutes to go.
    clock.advance(3_001_000)
    // `stale` refreshes with the spent token and learns it is dead.
    await expect(stale.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      code: 'invalid_grant',
    })
    expect(stale.tokenState).toBe('dead')
    // Past the slots its last call leased: this call learns the store holds an older pair and puts its own back.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await fresh.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await expect
      .poll(async () => (await store.load(pair.memberId))?.refreshToken)
      .toBe(emulator.currentRefreshToken)
    expect((await stale.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(stale.tokenState).toBe('valid')
    expect(stale.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    // The refresh of `fresh` and the refused one of `stale`; putting back and coming back to life sent nothing.
    expect(emulator.log.refreshRequests().map((entry) => entry.status)).toEqual([200, 400])
  })

  it('an instance refreshing while the store holds the older pair spends its own refresh token, not the spent one', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const persisted: RefreshAuthPayload[] = []
    const portal = client(emulator, pair, { store, now: clock.now }, persisted)
    await portal.actions.v2.call.make({ method: 'profile' })
    clock.advance(600_000)
    await portal.auth.refreshAuth()
    const held = portal.auth.getParams()
    store.clear()
    await store.save(pair)
    clock.advance(600_000)
    await portal.auth.refreshAuth()
    const tokens = emulator.log.refreshRequests().map((entry) => entry.token)
    expect(tokens).toEqual([pair.refreshToken, held.refreshToken])
    expect(emulator.log.rejected('invalid_grant')).toHaveLength(0)
    expect(portal.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    expect((await store.load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
    expect(persisted).toHaveLength(2)
  })
})

describe('a pair that died on a store', () => {
  it('is recorded there: a late instance sends nothing and gets the same refusal; a re-authorised pair revives it', async () => {
    const clock = createTestClock()
    emulator = await startPortalEmulator({ now: clock.now })
    const pair = emulator.issueAuthParams()
    const store = new MemoryStore()
    const first = client(emulator, pair, { store, now: clock.now })
    expect((await first.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    // The pair's refresh token is spent elsewhere: the first instance's refresh is refused, and the store records it.
    await refreshedWithoutStore(emulator, pair, clock.now)
    const refusal = await first.auth.refreshAuth().then(
      () => null,
      (error: unknown) => error,
    )
    expect(refusal).toMatchObject({ name: 'RefreshTokenError', code: 'invalid_grant' })
    expect(await store.deadReason(pair.memberId, pair.refreshToken)).toMatchObject({ code: 'invalid_grant' })
    const sent = emulator.log.refreshRequests().length
    // An instance that joins later with the same pair (from the application's database) learns it from the store.
    const late = client(emulator, pair, { store, now: clock.now })
    clock.advance(3_601_000)
    const lateRefusal = await late.actions.v2.call.make({ method: 'profile' }).then(
      () => null,
      (error: unknown) => error,
    )
    expect(lateRefusal).toMatchObject({
      name: 'RefreshTokenError',
      code: 'invalid_grant',
      description: (refusal as { description: string }).description,
      status: 400,
    })
    expect(late.tokenState).toBe('dead')
    expect(emulator.log.refreshRequests()).toHaveLength(sent)
    // The application is authorised again: the new pair given to one instance revives every other one.
    const fresh = emulator.issueAuthParams()
    first.setAuthOptions(fresh)
    await expect.poll(async () => (await store.load(pair.memberId))?.refreshToken).toBe(fresh.refreshToken)
    expect(await store.deadReason(pair.memberId, fresh.refreshToken)).toBeNull()
    expect((await late.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(late.auth.getParams().refreshToken).toBe(fresh.refreshToken)
    expect(emulator.log.refreshRequests()).toHaveLength(sent)
  })
})
