import { hostname } from 'node:os'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { type RedisClient, type RedisStore, RedisStoreInventory } from '../../src/redis.js'
import { nodeRedisServerBackend, type Opened, redisClusterBackend, redisServerBackend } from './backends.js'

const now = Math.floor(Date.now() / 1000)

/** A pair of `memberId` whose secrets name it. */
function pair(memberId: string, refreshToken = `refresh-of-${memberId}`): PortalOAuthParams {
  return {
    applicationToken: `app-of-${memberId}`,
    userId: 1,
    memberId,
    accessToken: `access-of-${memberId}`,
    refreshToken,
    expires: now + 3600,
    expiresIn: 3600,
    scope: 'crm,user',
    domain: `${memberId}.portal.example`,
    clientEndpoint: `https://${memberId}.portal.example/rest/`,
    serverEndpoint: 'https://oauth.bitrix.info/rest/',
    status: 'P',
  }
}

const DEAD = { code: 'invalid_grant', description: 'refresh token spent', status: 400 }

/**
 * `RedisStoreInventory` (`portal-oauth/redis`) in this process, on both clients: what `portal-oauth fleet` reads of
 * a `RedisStore`, portal by portal, without changing anything.
 */
for (const backend of [redisServerBackend, nodeRedisServerBackend]) {
  describe.skipIf(!backend.available)(`RedisStoreInventory (${backend.name})`, () => {
    let opened: Opened
    let closeClient = async (): Promise<void> => undefined
    // A prefix with every glob character SCAN MATCH knows: matched as text, not as a pattern.
    const prefix = 'inv*?[x]\\:'
    let store: RedisStore
    let inventory: RedisStoreInventory

    beforeAll(async () => {
      opened = await backend.open()
      store = opened.store({ prefix }) as RedisStore
      // The inventory reads through the same kind of client as the store.
      let client: RedisClient = opened.client() as unknown as RedisClient
      if (backend.client === 'node-redis') {
        const [node] = opened.redis!.nodes
        const made = createClient({ socket: { host: node!.host, port: node!.port } })
        await made.connect()
        closeClient = async () => made.destroy()
        client = made as unknown as RedisClient
      }
      inventory = new RedisStoreInventory(client, { prefix })
      for (const id of ['b', 'a', 'c', 'd']) await store.replace(pair(id))
      await store.remove('d')
      await store.markDead('c', pair('c').refreshToken, DEAD)
      // Keys the inventory must not read as portals: another prefix, a prefix that only starts alike.
      await opened.client().set('other:{z}:pair', JSON.stringify(pair('z')))
      await opened.client().set('inv*?[x]\\:{y}:other', '1')
      await opened.client().set('invA?[x]\\:{w}:pair', JSON.stringify(pair('w')))
    }, 60_000)
    afterAll(async () => {
      await closeClient()
      await opened?.close()
    })

    it('lists the member ids with a pair or an uninstall mark, sorted, under its prefix only', async () => {
      expect(await inventory.memberIds()).toEqual(['a', 'b', 'c', 'd'])
    })

    it('reads a portal: its pair, the dead mark of its refresh token, the lock holder and what is left of the lock', async () => {
      expect(await inventory.read('a')).toEqual({
        memberId: 'a',
        pair: pair('a'),
        removed: false,
        dead: null,
        lock: null,
      })
      expect(await inventory.read('c')).toEqual({
        memberId: 'c',
        pair: pair('c'),
        removed: false,
        dead: DEAD,
        lock: null,
      })
      expect(await inventory.read('d')).toEqual({
        memberId: 'd',
        pair: null,
        removed: true,
        dead: null,
        lock: null,
      })
      expect(await inventory.read('nobody')).toEqual({
        memberId: 'nobody',
        pair: null,
        removed: false,
        dead: null,
        lock: null,
      })
      const owner = await store.lock('b', 20_000)
      expect(owner).not.toBeNull()
      const locked = await inventory.read('b')
      expect(locked.lock?.holder).toBe(`${hostname()}:${process.pid}`)
      expect(locked.lock?.ttlMs).toBeGreaterThan(15_000)
      expect(locked.lock?.ttlMs).toBeLessThanOrEqual(20_000)
      await store.unlock('b', owner!)
      expect((await inventory.read('b')).lock).toBeNull()
    })

    it('a dead mark of an older refresh token does not make the newer pair dead', async () => {
      await store.replace(pair('c', 'refresh-after-reinstall'))
      expect((await inventory.read('c')).dead).toBeNull()
      await store.replace(pair('c'))
    })

    it('a lock taken by a version that wrote no holder reads as unknown', async () => {
      await opened.client().set(`${prefix}{a}:lock`, 'an-owner-without-holder', 'PX', 10_000)
      expect((await inventory.read('a')).lock).toEqual({ holder: 'unknown', ttlMs: expect.any(Number) })
      await opened.client().del(`${prefix}{a}:lock`)
    })

    it('walks every SCAN page: 2 500 portals', async () => {
      const many = new RedisStoreInventory(opened.client() as unknown as RedisClient, { prefix: 'many:' })
      const ids = Array.from({ length: 2_500 }, (_, index) => `m${String(index).padStart(4, '0')}`)
      const client = opened.client()
      for (let from = 0; from < ids.length; from += 500) {
        const batch = client.pipeline()
        for (const id of ids.slice(from, from + 500)) batch.set(`many:{${id}}:pair`, '{}')
        await batch.exec()
      }
      expect(await many.memberIds()).toEqual(ids)
    })
  })
}

describe('RedisStoreInventory refuses what it cannot read', () => {
  it('a value that is no Redis client, naming the argument', () => {
    expect(() => new RedisStoreInventory({} as RedisClient)).toThrow(
      'RedisStoreInventory: client must be an ioredis or node-redis client',
    )
  })

  it('a prefix with braces, as RedisStore does', async () => {
    if (!redisServerBackend.available) return
    const opened = await redisServerBackend.open()
    try {
      expect(
        () => new RedisStoreInventory(opened.client() as unknown as RedisClient, { prefix: 'a{b}' }),
      ).toThrow('options.prefix must be a string without braces')
    } finally {
      await opened.close()
    }
  })

  it.skipIf(!redisClusterBackend.available)(
    'a Cluster: SCAN would see one node only',
    async () => {
      const opened = await redisClusterBackend.open()
      try {
        expect(() => new RedisStoreInventory(opened.client() as unknown as RedisClient)).toThrow(
          'RedisStoreInventory: client must be one server or a Sentinel master, not a Cluster',
        )
      } finally {
        await opened.close()
      }
    },
    60_000,
  )
})
