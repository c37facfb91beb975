import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { PortalOAuth, PortalOAuthOptions, RefreshAuthPayload } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createStoreClients } from '../fleet/store-clients.js'
import { createTestClock } from '../helpers.js'
import { SlowSaveStore } from './slow-save-store.js'

/** The refresh timeout of these tests, ms: the store's save takes longer, or never answers. */
const REFRESH_TIMEOUT_MS = 300

let emulator: PortalEmulator | undefined
const clients = createStoreClients()
afterEach(async () => {
  await clients.destroyAll()
  await emulator?.close()
  emulator = undefined
})

/** An instance on a fresh pair the store already holds (its first look saves nothing), and what its callback got. */
async function rig(options: PortalOAuthOptions = {}) {
  const clock = createTestClock()
  emulator = await startPortalEmulator({ now: clock.now })
  const pair = emulator.issueAuthParams()
  const store = new SlowSaveStore()
  await store.save(pair)
  const persisted: RefreshAuthPayload[] = []
  const portal = clients.client(
    emulator,
    pair,
    { store, now: clock.now, refreshTimeout: REFRESH_TIMEOUT_MS, ...options },
    persisted,
  )
  // The first look at the store is over before its saves slow down.
  expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  return { emulator, store, portal, persisted, clock }
}

/** Five calls at once on the expired token: each result's success. */
async function callsOnExpiredToken(portal: PortalOAuth, advance: (ms: number) => void): Promise<boolean[]> {
  advance(3_601_000)
  const calls = Array.from({ length: 5 }, () => portal.actions.v2.call.make({ method: 'profile' }))
  return (await Promise.all(calls)).map((result) => result.isSuccess)
}

describe("the store's save outlasts the refresh timeout after the OAuth server answered", () => {
  it('a slow save: one refresh request per expiry, every call succeeds with the new token, the callback gets the newest pair, the store gets it', async () => {
    const { emulator, store, portal, persisted, clock } = await rig()
    store.saveDelayMs = 3 * REFRESH_TIMEOUT_MS
    for (let expiry = 1; expiry <= 2; expiry += 1) {
      expect(await callsOnExpiredToken(portal, clock.advance)).toEqual([true, true, true, true, true])
      expect(emulator.log.refreshRequests()).toHaveLength(expiry)
      expect(portal.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
      expect(persisted.map((payload) => payload.b24OAuthParams.refreshToken)).toHaveLength(expiry)
      expect(persisted.at(-1)?.b24OAuthParams.refreshToken).toBe(emulator.currentRefreshToken)
      await expect
        .poll(async () => (await store.load(emulator.memberId))?.refreshToken, { timeout: 5_000 })
        .toBe(emulator.currentRefreshToken)
    }
    expect(portal.auth.tokenState).toBe('valid')
  })

  it('a save that hangs: one refresh request, every call succeeds, the callback gets the newest pair; the pair is saved once the store answers again', async () => {
    const { emulator, store, portal, persisted, clock } = await rig({ lockTtl: 1_000 })
    store.hanging = true
    expect(await callsOnExpiredToken(portal, clock.advance)).toEqual([true, true, true, true, true])
    expect(emulator.log.refreshRequests()).toHaveLength(1)
    expect(persisted.map((payload) => payload.b24OAuthParams.refreshToken)).toEqual([
      emulator.currentRefreshToken,
    ])
    // refreshAuth() is a refresh of its own: the second request, also committed while the store hangs.
    await portal.auth.refreshAuth()
    expect(emulator.log.refreshRequests()).toHaveLength(2)
    expect(persisted.at(-1)?.b24OAuthParams.refreshToken).toBe(emulator.currentRefreshToken)
    store.hanging = false
    await expect
      .poll(async () => (await store.load(emulator.memberId))?.refreshToken, { timeout: 8_000 })
      .toBe(emulator.currentRefreshToken)
    expect(emulator.log.refreshRequests()).toHaveLength(2)
  })

  it('property: whatever the save takes, one refresh request, the calls succeed, the callback and then the store get the newest pair', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 * REFRESH_TIMEOUT_MS }), async (delayMs) => {
        try {
          const { emulator, store, portal, persisted, clock } = await rig()
          store.saveDelayMs = delayMs
          expect(await callsOnExpiredToken(portal, clock.advance)).toEqual([true, true, true, true, true])
          expect(emulator.log.refreshRequests()).toHaveLength(1)
          expect(persisted.map((payload) => payload.b24OAuthParams.refreshToken)).toEqual([
            emulator.currentRefreshToken,
          ])
          await expect
            .poll(async () => (await store.load(emulator.memberId))?.refreshToken, { timeout: 5_000 })
            .toBe(emulator.currentRefreshToken)
        } finally {
          await clients.destroyAll()
          await emulator?.close()
          emulator = undefined
        }
      }),
      { numRuns: 8 },
    )
  }, 60_000)
})

describe('setAuthOptions() while the store takes the refreshed pair', () => {
  it('the pair it brings stays the one in use: the refreshed pair, replaced, is not told to the machine again nor given to the callback', async () => {
    const { emulator, store, portal, persisted, clock } = await rig({ refreshTimeout: 3_000 })
    store.saveDelayMs = 2_000
    clock.advance(3_601_000)
    const call = portal.actions.v2.call.make({ method: 'profile' })
    await expect.poll(() => emulator.log.refreshRequests().length).toBe(1)
    const replaced = emulator.issueAuthParams()
    portal.setAuthOptions(replaced)
    expect((await call).isSuccess).toBe(true)
    expect(portal.auth.getParams().refreshToken).toBe(replaced.refreshToken)
    expect(portal.auth.getAuthData()).toMatchObject({ refresh_token: replaced.refreshToken })
    expect(persisted).toEqual([])
    expect(emulator.log.restRequests().at(-1)?.token).toBe(replaced.accessToken)
  })
})
