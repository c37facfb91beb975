import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { MemoryStore, type PortalOAuthParams } from '../../src/index.js'

// What MemoryStore does beyond the store contract (test/redis/store-contract.test.ts): clear(), which tests use to
// play a store that lost its data.

function pair(memberId: string): PortalOAuthParams {
  return {
    applicationToken: 'app-token-value',
    userId: 1,
    memberId,
    accessToken: 'access-token-value',
    refreshToken: 'refresh-token-value',
    expires: 2_000_000_000,
    expiresIn: 3600,
    scope: 'crm',
    domain: 'portal.example',
    clientEndpoint: 'https://portal.example/rest/',
    serverEndpoint: 'https://oauth.example/rest/',
    status: 'L',
  }
}

/** 'ended' when `waiting` settles within a second, else 'waiting'. */
function within(waiting: Promise<void>): Promise<string> {
  return Promise.race([waiting.then(() => 'ended'), sleep(1_000).then(() => 'waiting')])
}

describe('MemoryStore.clear()', () => {
  it('forgets every pair, lock, bucket, dead mark and removal mark', async () => {
    const store = new MemoryStore()
    const held = pair('held')
    const reason = { code: 'invalid_grant', description: 'The refresh token is invalid', status: 400 }
    const bucket = { burstLimit: 1, drainRate: 0.01 }
    await store.save(held)
    await store.markDead(held.memberId, held.refreshToken, reason)
    expect(await store.lock(held.memberId, 60_000)).not.toBeNull()
    expect((await store.takeSlot(held.memberId, bucket)).granted).toBe(1)
    expect((await store.takeSlot(held.memberId, bucket)).granted).toBe(0)
    await store.remove('removed')
    store.clear()
    expect(await store.load(held.memberId)).toBeNull()
    expect(await store.lock(held.memberId, 60_000)).not.toBeNull()
    expect(await store.takeSlot(held.memberId, bucket)).toEqual({
      waitMs: 0,
      storedExpires: null,
      granted: 1,
      removed: false,
    })
    // The same pair seeded again carries no dead mark.
    await store.save(held)
    expect(await store.deadReason(held.memberId, held.refreshToken)).toBeNull()
    // A removed portal's pair may be written back.
    expect(await store.save(pair('removed'))).toEqual(pair('removed'))
    expect(await store.load('removed')).toEqual(pair('removed'))
  })

  it('wakes the waiters of every portal it held, removed ones included', async () => {
    const store = new MemoryStore()
    await store.save(pair('held'))
    await store.remove('removed')
    const onHeld = store.changed('held', 60_000)
    const onRemoved = store.changed('removed', 60_000)
    store.clear()
    expect(await within(onHeld)).toBe('ended')
    expect(await within(onRemoved)).toBe('ended')
  })
})
