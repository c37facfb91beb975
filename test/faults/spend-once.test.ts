import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import {
  MemoryStore,
  type PortalOAuthOptions,
  type RefreshAuthPayload,
  type TokenStore,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createStoreClients } from '../fleet/store-clients.js'
import { FaultyStore } from './faulty-store.js'
import { presentedTokens } from './presented-tokens.js'

// Ways the property of spend-once.property.test.ts found to present one refresh token twice, step by step.

let emulator: PortalEmulator | undefined
const clients = createStoreClients()
afterEach(async () => {
  emulator?.releaseHeldRequests()
  await clients.destroyAll()
  await emulator?.close()
  emulator = undefined
})

/** Two instances on `store`, which holds their pair; each has had its first look at the store. */
async function twoInstances(store: TokenStore & { inner?: MemoryStore }, options: PortalOAuthOptions) {
  emulator = await startPortalEmulator()
  const pair = emulator.issueAuthParams()
  await (store.inner ?? store).save(pair)
  const persisted: RefreshAuthPayload[] = []
  const [a, b] = [0, 1].map(() => clients.client(emulator!, pair, { store, ...options }, persisted)) as [
    ReturnType<typeof clients.client>,
    ReturnType<typeof clients.client>,
  ]
  for (const portal of [a, b])
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  return { emulator, pair, a, b, persisted }
}

/** Resolves once nobody holds the portal's lock in `store`, polling; rejects after `ms`. */
async function lockFree(store: MemoryStore, memberId: string, ms: number): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < ms) {
    const owner = await store.lock(memberId, 1)
    if (owner) {
      await store.unlock(memberId, owner)
      return performance.now() - started
    }
    await sleep(10)
  }
  throw new Error(`the lock was still held after ${ms} ms`)
}

/** Each refresh token presented once, and none refused. */
function presentedOnce(target: PortalEmulator): void {
  const tokens = presentedTokens(target)
  expect(new Set(tokens).size).toBe(tokens.length)
  expect(target.log.rejected('invalid_grant')).toEqual([])
}

describe('a refresh token is presented once', () => {
  it('the save of the new pair never answers: the pair is saved again while the lock lasts, and the instance that takes the lock next takes that pair', async () => {
    const store = new FaultyStore()
    const { emulator, a, b } = await twoInstances(store, {
      refreshTimeout: 400,
      refreshRetries: 0,
      lockTtl: 1_500,
    })
    // The save under the lock is lost on its way: it neither lands nor answers.
    store.faults = [{ method: 'save', nth: 0, kind: 'hang' }]
    await a.auth.refreshAuth()
    const refreshed = a.auth.getParams().refreshToken
    // Before, the instance waited for that save's answer until the lock's TTL, and the next holder found the old pair.
    await expect.poll(async () => (await store.inner.load(emulator.memberId))?.refreshToken).toBe(refreshed)
    expect(await lockFree(store.inner, emulator.memberId, 1_500)).toBeLessThan(1_000)
    await b.auth.refreshAuth()
    expect(b.auth.getParams().refreshToken).toBe(refreshed)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    presentedOnce(emulator)
  })

  it('destroy() while the OAuth server still holds the request of an attempt that timed out: it waits for the answer, which is saved before the lock is given back; the other instance takes that pair', async () => {
    const store = new MemoryStore()
    const { emulator, a, b, persisted } = await twoInstances(store, {
      refreshTimeout: 200,
      refreshRetries: 0,
      lockTtl: 5_000,
    })
    emulator.holdRequests(1, { server: 'oauth' })
    const timedOut = a.auth.refreshAuth().catch((error: unknown) => error)
    await emulator.waitForHeld(1)
    expect(await timedOut).toMatchObject({ code: 'REQUEST_TIMEOUT' })
    let destroyed = false
    const destroying = a.destroy().then(() => {
      destroyed = true
    })
    // Before, destroy() cut the request off and gave the lock back at once: the server then spent the refresh token
    // for an answer nobody read, and the other instance presented it again from the store's pair.
    await sleep(300)
    expect(destroyed).toBe(false)
    emulator.releaseHeldRequests()
    await destroying
    const refreshed = emulator.currentRefreshToken
    expect((await store.load(emulator.memberId))?.refreshToken).toBe(refreshed)
    expect(persisted.map((payload) => payload.b24OAuthParams.refreshToken)).toEqual([refreshed])
    expect(await lockFree(store, emulator.memberId, 100)).toBeLessThan(100)
    await b.auth.refreshAuth()
    expect(b.auth.getParams().refreshToken).toBe(refreshed)
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    presentedOnce(emulator)
  })

  it('destroy() while the OAuth server never answers that request: it waits no longer than the lock lasts', async () => {
    const store = new MemoryStore()
    const { emulator, a } = await twoInstances(store, {
      refreshTimeout: 200,
      refreshRetries: 0,
      lockTtl: 1_000,
    })
    emulator.holdRequests(1, { server: 'oauth' })
    const timedOut = a.auth.refreshAuth().catch((error: unknown) => error)
    await emulator.waitForHeld(1)
    expect(await timedOut).toMatchObject({ code: 'REQUEST_TIMEOUT' })
    const started = performance.now()
    await a.destroy()
    // The request ends at the lock's TTL, counted from when it was sent (some 200 ms ago).
    expect(performance.now() - started).toBeLessThan(1_500)
    await expect.poll(() => emulator.log.tokenRequests()[0]?.clientClosed).toBe(true)
  })
})
