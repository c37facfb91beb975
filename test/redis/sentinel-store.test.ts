import { setTimeout as sleep } from 'node:timers/promises'
import { createSentinel } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SentinelUnderTest, startRedisSentinel } from '../../scripts/dev/redis-sentinel.js'
import { cli } from '../../scripts/dev/redis-server.js'
import type { PortalOAuthParams } from '../../src/index.js'
import { type RedisClient, RedisStore } from '../../src/redis.js'
import { redisInstalled } from './redis-server.js'

// RedisStore over a node-redis sentinel client, without a failover (test/redis/sentinel-failover.test.ts moves the
// master): commands go to the master, waits are woken through the sentinel client's own subscriptions, and close()
// ends them.

function pair(memberId: string, expires: number): PortalOAuthParams {
  return {
    applicationToken: 'app-token-value',
    userId: 1,
    memberId,
    accessToken: `access-${expires}`,
    refreshToken: `refresh-${expires}`,
    expires,
    expiresIn: 3600,
    scope: 'crm',
    domain: 'portal.example',
    clientEndpoint: 'https://portal.example/rest/',
    serverEndpoint: 'https://oauth.example/rest/',
    status: 'L',
  }
}

describe.skipIf(!redisInstalled)('RedisStore on a node-redis sentinel client', () => {
  let group: SentinelUnderTest
  const clients: Array<{ destroy(): void }> = []
  beforeAll(async () => {
    group = await startRedisSentinel()
  }, 60_000)
  afterAll(async () => {
    for (const client of clients) client.destroy()
    await group?.stop()
  })

  async function store(): Promise<RedisStore> {
    const client = createSentinel({ name: group.name, sentinelRootNodes: group.sentinels })
    client.on('error', () => undefined)
    await client.connect()
    clients.push(client)
    return new RedisStore(client as unknown as RedisClient, { pollInterval: 60_000 })
  }

  /** Subscribers of the portal's channel on the master. */
  async function subscribers(memberId: string): Promise<string> {
    const answer = await cli(await group.masterPort(), [
      'PUBSUB',
      'NUMSUB',
      `portal-oauth:{${memberId}}:changed`,
    ])
    return answer.split('\n')[1] ?? ''
  }

  it('keeps the newest pair on the master, and a save through another client wakes a wait', async () => {
    const first = await store()
    const second = await store()
    const held = pair('sentinel-pair', 2_000_000_000)
    expect(await first.save(held)).toEqual(held)
    expect(await second.load(held.memberId)).toEqual(held)
    // A first wait ends once its subscription is confirmed; the one after it ends only on a change.
    await first.changed(held.memberId, 60_000)
    const waiting = first.changed(held.memberId, 60_000)
    let woke = false
    void waiting.then(() => {
      woke = true
    })
    // Saved until the wait ends; the timeout and the poll interval are a minute.
    let saves = 0
    while (!woke) {
      saves += 1
      await second.save({ ...held, expires: held.expires + saves, refreshToken: `refresh-next-${saves}` })
      await sleep(20)
    }
    expect((await first.load(held.memberId))?.refreshToken).toBe(`refresh-next-${saves}`)
    await first.close()
    await second.close()
  })

  it('a subscription outlives its last wait by the poll interval; close() ends a wait and gives back every subscription', async () => {
    const made = await store()
    await made.changed('sentinel-timeout', 100)
    // Kept: the poll interval is a minute.
    await expect.poll(() => subscribers('sentinel-timeout')).toBe('1')
    await made.changed('sentinel-close', 60_000)
    const waiting = made.changed('sentinel-close', 60_000).then(() => 'ended')
    await expect.poll(() => subscribers('sentinel-close')).toBe('1')
    expect(await Promise.race([waiting, sleep(100).then(() => 'waiting')])).toBe('waiting')
    await made.close()
    expect(await Promise.race([waiting, sleep(1_000).then(() => 'waiting')])).toBe('ended')
    await expect.poll(() => subscribers('sentinel-close')).toBe('0')
    await expect.poll(() => subscribers('sentinel-timeout')).toBe('0')
  })
})
