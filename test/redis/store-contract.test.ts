import { getEventListeners } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PortalOAuthParams, SharedBucketSettings, TokenStore } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import {
  autoPipeliningBackend,
  type Backend,
  memoryBackend,
  nodeRedisClusterBackend,
  nodeRedisServerBackend,
  type Opened,
  redisClusterBackend,
  redisServerBackend,
} from './backends.js'

let counter = 0
/** A pair of a portal no other test uses. */
function pair(expires: number, overrides: Partial<PortalOAuthParams> = {}): PortalOAuthParams {
  counter += 1
  return {
    applicationToken: 'app-token-value',
    userId: 1,
    memberId: `member-${process.pid}-${counter}`,
    accessToken: `access-${expires}`,
    refreshToken: `refresh-${expires}`,
    expires,
    expiresIn: 3600,
    scope: 'crm',
    domain: 'portal.example',
    clientEndpoint: 'https://portal.example/rest/',
    serverEndpoint: 'https://oauth.example/rest/',
    status: 'L',
    ...overrides,
  }
}

/** Waits for `changed` to resolve, saving a newer pair from `other` until it does (a subscription takes a moment). */
async function wakeBySaving(
  waiting: Promise<void>,
  other: TokenStore,
  base: PortalOAuthParams,
): Promise<number> {
  let woke = false
  void waiting.then(() => {
    woke = true
  })
  let saves = 0
  while (!woke) {
    saves += 1
    await other.save({ ...base, expires: base.expires + saves, refreshToken: `refresh-next-${saves}` })
    await sleep(20)
  }
  return saves
}

interface TakersResult {
  throttled: number
  statuses: number[]
}

/** `takers` stores each send `each` requests to the emulator, every one after a slot of the shared bucket. */
async function runTakers(
  emulator: PortalEmulator,
  stores: TokenStore[],
  memberId: string,
  bucket: SharedBucketSettings,
  each: number,
  midway?: () => Promise<void>,
): Promise<TakersResult> {
  const token = emulator.issueAuthParams().accessToken
  const send = async (): Promise<number> => {
    const response = await fetch(`${emulator.clientEndpoint}profile`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    await response.arrayBuffer()
    return response.status
  }
  // Connections opened and code warmed first: a cold first request is late by more than the bucket's margin.
  await Promise.all(stores.map(send))
  await sleep((stores.length / bucket.drainRate) * 1000 + 200)
  emulator.log.clear()
  const result: TakersResult = { throttled: 0, statuses: [] }
  let sent = 0
  let midwayDone: Promise<void> | undefined
  await Promise.all(
    stores.map(async (store) => {
      for (let done = 0; done < each; ) {
        const { waitMs: wait } = await store.takeSlot(memberId, bucket)
        if (wait > 0) {
          result.throttled += 1
          await sleep(wait)
          continue
        }
        result.statuses.push(await send())
        done += 1
        sent += 1
        if (midway && sent === Math.floor((stores.length * each) / 2)) midwayDone = midway()
      }
    }),
  )
  await midwayDone
  return result
}

const backends: Backend[] = [
  memoryBackend,
  redisServerBackend,
  autoPipeliningBackend,
  redisClusterBackend,
  nodeRedisServerBackend,
  nodeRedisClusterBackend,
]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`TokenStore contract: ${backend.name}`, () => {
    let opened: Opened
    let first: TokenStore
    let second: TokenStore
    beforeAll(async () => {
      opened = await backend.open()
      // Two stores: for Redis two connections, as two processes would have.
      first = opened.store({ pollInterval: 60_000 })
      second = opened.store({ pollInterval: 60_000 })
    }, 60_000)
    afterAll(async () => {
      await opened?.close()
    })

    /**
     * Until `store` hears of changes of the portal. A RedisStore's first wait on a portal ends once Redis confirmed its
     * subscription (a change announced before then was not heard: its caller looks again), and the subscription is
     * kept a poll interval after; a MemoryStore hears at once. The waits after this end only on a change, their
     * timeout or their signal.
     */
    async function listening(store: TokenStore, memberId: string): Promise<void> {
      if (!backend.inProcess) await store.changed(memberId, 60_000)
    }

    it('the newest pair wins: a later expires replaces, an earlier one is refused and the held pair returned', async () => {
      const held = pair(2_000_000_000)
      expect(await first.load(held.memberId)).toBeNull()
      expect(await first.save(held)).toEqual(held)
      const older = { ...held, expires: held.expires - 60, refreshToken: 'refresh-older' }
      expect(await second.save(older)).toEqual(held)
      expect(await second.load(held.memberId)).toEqual(held)
      const newer = { ...held, expires: held.expires + 60, refreshToken: 'refresh-newer' }
      expect(await second.save(newer)).toEqual(newer)
      const sameExpiry = { ...newer, refreshToken: 'refresh-same-expiry' }
      expect(await first.save(sameExpiry)).toEqual(sameExpiry)
      expect(await first.load(held.memberId)).toEqual(sameExpiry)
    })

    it('grants several slots in one round trip while the bucket stays at most half full, then one at a time', async () => {
      const memberId = pair(2_000_000_000).memberId
      // Hardly any drain during the test (a slot in about 3 hours), also on a loaded machine: the level is what was taken.
      const bucket = { burstLimit: 21, drainRate: 0.0001 }
      expect((await first.takeSlot(memberId, bucket, 4)).granted).toBe(4)
      expect((await second.takeSlot(memberId, bucket, 4)).granted).toBe(4)
      // 8 + 4 would fill more than half of 21: one slot only.
      expect(await first.takeSlot(memberId, bucket, 4)).toMatchObject({ waitMs: 0, granted: 1 })
      // The margin keeps a sliver of the last slot free: 20 fit.
      for (let level = 9; level < 20; level += 1) {
        expect((await second.takeSlot(memberId, bucket)).granted).toBe(1)
      }
      expect(await first.takeSlot(memberId, bucket, 4)).toMatchObject({ granted: 0 })
      expect((await first.takeSlot(memberId, bucket, 4)).waitMs).toBeGreaterThan(0)
    })

    it('replace writes whatever the store holds; remove forgets the pair, the lock and the bucket, and marks the portal removed until the next replace', async () => {
      const held = pair(2_000_000_000)
      await first.save(held)
      const older = { ...held, expires: held.expires - 600, refreshToken: 'refresh-from-event' }
      await second.replace(older)
      expect(await first.load(held.memberId)).toEqual(older)
      expect(await first.lock(held.memberId, 60_000)).not.toBeNull()
      const bucket = { burstLimit: 1, drainRate: 0.01 }
      expect(await first.takeSlot(held.memberId, bucket)).toEqual({
        waitMs: 0,
        storedExpires: older.expires,
        granted: 1,
        removed: false,
      })
      // The slot frees when the one taken has drained: 100 s at 0.01 a second, less the time since.
      const { waitMs } = await first.takeSlot(held.memberId, bucket)
      expect(waitMs).toBeGreaterThan(90_000)
      expect(waitMs).toBeLessThanOrEqual(100_000)
      await second.remove(held.memberId)
      expect(await first.load(held.memberId)).toBeNull()
      expect(await second.lock(held.memberId, 60_000)).not.toBeNull()
      // The bucket tells that the portal was removed, in the same round trip.
      expect(await second.takeSlot(held.memberId, bucket)).toEqual({
        waitMs: 0,
        storedExpires: null,
        granted: 1,
        removed: true,
      })
      // An instance that still holds the pair cannot write it back...
      expect(await first.save(held)).toEqual(held)
      expect(await second.load(held.memberId)).toBeNull()
      // ... until an install writes a pair again.
      await second.replace(held)
      expect(await first.load(held.memberId)).toEqual(held)
      expect(await first.takeSlot(held.memberId, { burstLimit: 50, drainRate: 2 })).toMatchObject({
        storedExpires: held.expires,
        removed: false,
      })
    })

    it('a dead pair is recorded while the store holds it, named by its refresh token; a newer pair ends it', async () => {
      const held = pair(2_000_000_000)
      const reason = { code: 'invalid_grant', description: 'The refresh token is invalid', status: 400 }
      await first.save(held)
      expect(await second.deadReason!(held.memberId, held.refreshToken)).toBeNull()
      // Not the pair the store holds: nothing is recorded.
      await first.markDead!(held.memberId, 'refresh-not-held', reason)
      expect(await second.deadReason!(held.memberId, 'refresh-not-held')).toBeNull()
      await first.markDead!(held.memberId, held.refreshToken, reason)
      expect(await second.deadReason!(held.memberId, held.refreshToken)).toEqual(reason)
      expect(await second.deadReason!(held.memberId, 'refresh-other')).toBeNull()
      const newer = { ...held, expires: held.expires + 60, refreshToken: 'refresh-reauthorised' }
      await second.save(newer)
      expect(await first.deadReason!(held.memberId, newer.refreshToken)).toBeNull()
    })

    it('a dead mark is kept when the same pair is saved or written again; a portal without a pair records none', async () => {
      const held = pair(2_000_000_000)
      const reason = { code: 'invalid_grant', description: 'The refresh token is invalid', status: 400 }
      await first.markDead!(held.memberId, held.refreshToken, reason)
      expect(await second.deadReason!(held.memberId, held.refreshToken)).toBeNull()
      await first.save(held)
      await first.markDead!(held.memberId, held.refreshToken, reason)
      await second.save(held)
      expect(await first.deadReason!(held.memberId, held.refreshToken)).toEqual(reason)
      await second.replace(held)
      expect(await first.deadReason!(held.memberId, held.refreshToken)).toEqual(reason)
    })

    it('the lock: one holder at a time, released only by its owner, freed by its TTL', async () => {
      const { memberId } = pair(2_000_000_000)
      const owner = await first.lock(memberId, 300)
      expect(owner).toEqual(expect.any(String))
      expect(await second.lock(memberId, 300)).toBeNull()
      expect(await second.unlock(memberId, 'not-the-owner')).toBe(false)
      expect(await second.lock(memberId, 300)).toBeNull()
      await sleep(400)
      const next = await second.lock(memberId, 60_000)
      expect(next).toEqual(expect.any(String))
      expect(next).not.toBe(owner)
      // The first owner's lock has expired: its release must not free the new holder's.
      expect(await first.unlock(memberId, owner!)).toBe(false)
      expect(await first.lock(memberId, 60_000)).toBeNull()
      expect(await second.unlock(memberId, next!)).toBe(true)
      expect(await first.lock(memberId, 60_000)).toEqual(expect.any(String))
    })

    it('changed() wakes on a save through another store instance', async () => {
      const held = pair(2_000_000_000)
      await first.save(held)
      await listening(first, held.memberId)
      // The poll interval and the timeout are a minute: only the announcement can end this wait in time.
      const saves = await wakeBySaving(first.changed(held.memberId, 60_000), second, held)
      expect(saves).toBeGreaterThan(0)
      expect((await first.load(held.memberId))?.refreshToken).toBe(`refresh-next-${saves}`)
    })

    it('changed() wakes when the lock is released through another store instance', async () => {
      const { memberId } = pair(2_000_000_000)
      await listening(first, memberId)
      const waiting = first.changed(memberId, 60_000)
      let woke = false
      void waiting.then(() => {
        woke = true
      })
      // Taken and given back until the wait ends; the timeout is a minute.
      let releases = 0
      while (!woke) {
        const owner = await second.lock(memberId, 60_000)
        expect(await second.unlock(memberId, owner!)).toBe(true)
        releases += 1
        await sleep(20)
      }
      expect(releases).toBeGreaterThan(0)
    })

    it('changed() ends at its timeout and on abort', async () => {
      const { memberId } = pair(2_000_000_000)
      await first.changed(memberId, 50)
      const controller = new AbortController()
      const waiting = first.changed(memberId, 60_000, controller.signal)
      controller.abort()
      await waiting
    })

    it('changed() with a signal already aborted returns at once, and a wait leaves no listener on its signal', async () => {
      const { memberId } = pair(2_000_000_000)
      const aborted = new AbortController()
      aborted.abort()
      const waiting = first.changed(memberId, 60_000, aborted.signal).then(() => 'ended')
      expect(await Promise.race([waiting, sleep(1_000).then(() => 'waiting')])).toBe('ended')
      const controller = new AbortController()
      await first.changed(memberId, 50, controller.signal)
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    })

    it('changed() keeps no timer that holds the process open', async () => {
      const { memberId } = pair(2_000_000_000)
      // Subscribed once first: a Redis connection may keep timers of its own while it connects, and the first wait ends
      // as soon as its subscription is confirmed, maybe before those timers do.
      await first.changed(memberId, 50)
      await sleep(200)
      const timers = (): number =>
        process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
      const before = timers()
      const controller = new AbortController()
      const waiting = first.changed(memberId, 60_000, controller.signal)
      await sleep(20)
      expect(timers()).toBe(before)
      controller.abort()
      await waiting
    })

    it('a waiter that times out leaves the others on the same portal waiting for the next change', async () => {
      const held = pair(2_000_000_000)
      await first.save(held)
      await listening(first, held.memberId)
      const long = first.changed(held.memberId, 60_000)
      await first.changed(held.memberId, 50)
      const saves = await wakeBySaving(long, second, held)
      expect(saves).toBeGreaterThan(0)
    })

    it('remove() wakes the waiters on the portal and forgets its dead mark', async () => {
      const held = pair(2_000_000_000)
      await first.save(held)
      await first.markDead!(held.memberId, held.refreshToken, {
        code: 'invalid_grant',
        description: '',
        status: 400,
      })
      await listening(first, held.memberId)
      const waiting = first.changed(held.memberId, 60_000)
      let woke = false
      void waiting.then(() => {
        woke = true
      })
      // Removed until the wait ends; the timeout is a minute.
      while (!woke) {
        await second.remove(held.memberId)
        await sleep(20)
      }
      // The same pair installed again is not dead.
      await second.replace(held)
      expect(await first.deadReason!(held.memberId, held.refreshToken)).toBeNull()
    })

    it('close() ends every wait at once', async () => {
      const { memberId } = pair(2_000_000_000)
      const closing = opened.store({ pollInterval: 60_000 })
      await listening(closing, memberId)
      const waiting = closing.changed(memberId, 60_000).then(() => 'ended')
      await sleep(20)
      await closing.close()
      expect(await Promise.race([waiting, sleep(1_000).then(() => 'waiting')])).toBe('ended')
      if (!backend.inProcess) {
        // A RedisStore stays closed: a later wait ends at once, with no subscription (MemoryStore is only woken).
        const after = closing.changed(memberId, 60_000).then(() => 'ended')
        expect(await Promise.race([after, sleep(1_000).then(() => 'waiting')])).toBe('ended')
      }
    })

    it('the bucket: four takers never exceed the portal bucket they share', async () => {
      const bucket = { burstLimit: 5, drainRate: 10 }
      const emulator = await startPortalEmulator({ rateLimit: bucket })
      try {
        const stores = backend.inProcess
          ? [first, first, first, first]
          : [first, second, opened.store(), opened.store()]
        const result = await runTakers(emulator, stores, pair(0).memberId, bucket, 8)
        expect(result.statuses).toHaveLength(32)
        expect(emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
        expect(result.statuses.every((status) => status === 200)).toBe(true)
        expect(result.throttled).toBeGreaterThan(0)
      } finally {
        await emulator.close()
      }
    })

    it('losing the data mid-run (FLUSHALL): the pair reads as absent, seeding, the lock and the bucket go on', async () => {
      const bucket = { burstLimit: 5, drainRate: 10 }
      const emulator = await startPortalEmulator({ rateLimit: bucket })
      const held = pair(2_000_000_000)
      const { memberId } = held
      try {
        await first.save(held)
        expect(await first.lock(memberId, 60_000)).not.toBeNull()
        const stores = backend.inProcess ? [first, first] : [first, second]
        const result = await runTakers(emulator, stores, memberId, bucket, 10, () =>
          opened.loseData([memberId]),
        )
        expect(result.statuses).toHaveLength(20)
        // The bucket starts empty again while the portal's is not: at most one bucket's worth of rejections.
        const rejected = emulator.log.rejected('QUERY_LIMIT_EXCEEDED').length
        expect(rejected).toBeLessThanOrEqual(bucket.burstLimit)
        expect(await second.load(memberId)).toBeNull()
        expect(await second.save(held)).toEqual(held)
        expect(await first.load(memberId)).toEqual(held)
        expect(await second.lock(memberId, 60_000)).not.toBeNull()
      } finally {
        await emulator.close()
      }
    })
  })
}
