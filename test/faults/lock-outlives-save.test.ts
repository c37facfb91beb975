import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore, type PortalOAuth, type TokenStore } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createStoreClients } from '../fleet/store-clients.js'
import { createTestClock } from '../helpers.js'
import { CutOffStore } from './cut-off-store.js'
import { presentedTokens } from './presented-tokens.js'

/** The instances' lock TTL, ms: the refresher is cut off from the store for longer. */
const LOCK_TTL_MS = 1_000
const REFRESH_TIMEOUT_MS = 300

let emulator: PortalEmulator | undefined
const clients = createStoreClients()
afterEach(async () => {
  await clients.destroyAll()
  await emulator?.close()
  emulator = undefined
})

/**
 * Two instances on one store, each through a view of its own; the refresher's view is cut off from the store as
 * `cutOff` says the moment its refresh request is at the OAuth server, for `cutOffMs`, while the other one calls
 * every 100 ms on the expired token (each call within 600 ms, the cut-off lasting until they ended). Resolves what the
 * other one's calls got meanwhile.
 */
async function refreshCutOff(cutOff: ReadonlySet<keyof TokenStore> | 'all', cutOffMs: number) {
  const clock = createTestClock()
  emulator = await startPortalEmulator({ now: clock.now })
  const target = emulator
  const pair = target.issueAuthParams()
  const shared = new MemoryStore()
  await shared.save(pair)
  const refresherView = new CutOffStore(shared)
  const options = { refreshTimeout: REFRESH_TIMEOUT_MS, lockTtl: LOCK_TTL_MS, now: clock.now }
  const refresher = clients.client(target, pair, { ...options, store: refresherView })
  const other = clients.client(target, pair, { ...options, store: new CutOffStore(shared) })
  for (const portal of [refresher, other])
    expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  clock.advance(3_601_000)
  target.holdRequests(1, { server: 'oauth' })
  const refreshed = refresher.auth.refreshAuth()
  await target.waitForHeld()
  refresherView.cutOff = cutOff
  target.releaseHeldRequests()
  await refreshed
  // The refresher holds the new pair; the store still holds the one whose refresh token it spent.
  expect(refresher.auth.getParams().refreshToken).toBe(target.currentRefreshToken)
  expect((await shared.load(pair.memberId))?.refreshToken).toBe(pair.refreshToken)
  const meanwhile: Array<Promise<boolean>> = []
  for (const until = performance.now() + cutOffMs; performance.now() < until; ) {
    meanwhile.push(call(other, 2 * REFRESH_TIMEOUT_MS))
    await sleep(100)
  }
  const outcomes = await Promise.all(meanwhile)
  refresherView.cutOff = new Set()
  return { target, shared, refresher, other, meanwhile: outcomes }
}

function call(portal: PortalOAuth, timeout: number): Promise<boolean> {
  return portal.actions.v2.call.make({ method: 'profile', params: {}, requestId: 'x', timeout }).then(
    (result) => result.isSuccess,
    () => false,
  )
}

/** What must hold once the refresher reaches the store again: its pair there, one refresh request, no token twice. */
async function pairReachedTheStore({ target, shared, other }: Awaited<ReturnType<typeof refreshCutOff>>) {
  await expect
    .poll(async () => (await shared.load(target.memberId))?.refreshToken, { timeout: 5_000 })
    .toBe(target.currentRefreshToken)
  expect(await call(other, 4 * REFRESH_TIMEOUT_MS)).toBe(true)
  expect(other.auth.getParams().refreshToken).toBe(target.currentRefreshToken)
  expect(target.log.refreshRequests()).toHaveLength(1)
  const presented = presentedTokens(target)
  expect(new Set(presented).size).toBe(presented.length)
  expect(target.log.rejected('invalid_grant')).toEqual([])
}

describe('a refreshed pair whose save cannot reach the store for longer than the lock lasts', () => {
  it("the refresher's saves fail for three lock TTLs: it renews its lock with each save, nobody presents the spent token, the pair reaches the store", async () => {
    const run = await refreshCutOff(new Set(['save']), 3 * LOCK_TTL_MS)
    // Nobody could refresh meanwhile: the lock was renewed.
    expect(run.meanwhile.every((ok) => !ok)).toBe(true)
    await pairReachedTheStore(run)
  })

  it('the refresher is cut off from the store for two lock TTLs (its lock expires): the next holder finds the spending mark and waits for its save instead of presenting the token', async () => {
    const run = await refreshCutOff('all', 2 * LOCK_TTL_MS)
    await pairReachedTheStore(run)
  })
})
