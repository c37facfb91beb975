import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MemoryStore, type PortalFleet, type TokenStore } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { Redis } from '../redis/ioredis-under-test.js'
import { type RedisUnderTest, redisInstalled, startRedisServer } from '../redis/redis-server.js'
import { createFleetRig, destroyed } from './fleet-rig.js'

// An idle held client is released (destroyed) and its portal read again from the store at the next get(); one with a
// call or a refresh in flight is not, however long it has been idle. On a MemoryStore and on a real Redis.

const IDLE_MS = 200

interface StoreUnderTest {
  name: string
  available: boolean
  /** Starts what the stores live on, once. */
  start(): Promise<void>
  open(): Promise<TokenStore>
  close(): Promise<void>
}

let redis: RedisUnderTest | undefined
const connections: Redis[] = []

const stores: StoreUnderTest[] = [
  {
    name: 'MemoryStore',
    available: true,
    start: async () => undefined,
    open: async () => new MemoryStore(),
    close: async () => undefined,
  },
  {
    name: 'RedisStore',
    available: redisInstalled,
    async start() {
      redis ??= await startRedisServer()
    },
    async open() {
      const [node] = redis!.nodes
      const client = new Redis(node!.port, node!.host)
      client.on('error', () => undefined)
      connections.push(client)
      return new RedisStore(client)
    },
    async close() {
      for (const client of connections.splice(0)) client.disconnect()
    },
  },
]

afterAll(async () => {
  await redis?.stop()
})

/** The REST requests `emulator` answered, with the access token each carried. */
function restTokens(emulator: PortalEmulator): Array<string | undefined> {
  return emulator.log.entries.filter((entry) => entry.kind === 'rest').map((entry) => entry.token)
}

for (const backend of stores) {
  describe.skipIf(!backend.available)(`PortalFleet eviction on ${backend.name}`, () => {
    const rig = createFleetRig()
    afterEach(async () => {
      await rig.close()
      await backend.close()
    })
    beforeAll(() => backend.start())

    async function installed(): Promise<{ emulator: PortalEmulator; fleet: PortalFleet }> {
      const emulator = await rig.portal()
      const fleet = rig.fleet(emulator, { store: await backend.open(), idleTimeout: IDLE_MS })
      await fleet.handleEvent(emulator.installEvent('ONAPPINSTALL'))
      return { emulator, fleet }
    }

    it('an idle client is released; the next get() builds one from the stored pair, with no refresh', async () => {
      const { emulator, fleet } = await installed()
      const first = await fleet.get(emulator.memberId)
      expect((await first.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      await destroyed(first)
      const second = await fleet.get(emulator.memberId)
      expect(second).not.toBe(first)
      expect((await second.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      // Both clients sent the pair of the install; nobody asked for a new one.
      expect(emulator.log.tokenRequests()).toHaveLength(0)
      expect(new Set(restTokens(emulator).filter((token) => token !== undefined))).toEqual(
        new Set([emulator.currentAccessToken]),
      )
    })

    it('a client whose call is in flight past its idle time is kept: the call succeeds on it', async () => {
      const { emulator, fleet } = await installed()
      const portal = await fleet.get(emulator.memberId)
      emulator.holdRequests(1, { server: 'portal' })
      const call = portal.actions.v2.call.make({ method: 'profile' })
      await emulator.waitForHeld(1)
      await sleep(IDLE_MS * 4)
      emulator.releaseHeldRequests()
      expect((await call).isSuccess).toBe(true)
      expect(await fleet.get(emulator.memberId)).toBe(portal)
    })

    it('a call waiting for its refresh past the idle time succeeds; the next client takes the refreshed pair from the store', async () => {
      const { emulator, fleet } = await installed()
      const portal = await fleet.get(emulator.memberId)
      expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      emulator.expireAccessTokens()
      emulator.holdRequests(1, { server: 'oauth' })
      const call = portal.actions.v2.call.make({ method: 'profile' })
      await emulator.waitForHeld(1)
      expect(portal.tokenState).toBe('refreshing')
      await sleep(IDLE_MS * 4)
      emulator.releaseHeldRequests()
      const result = await call.catch((error: unknown) => error)
      expect((result as { isSuccess?: boolean }).isSuccess, String(result)).toBe(true)
      // Released once idle, with its new pair in the store: the next client calls with it, no second refresh.
      await destroyed(portal)
      const next = await fleet.get(emulator.memberId)
      expect(next).not.toBe(portal)
      expect((await next.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      expect(emulator.log.tokenRequests()).toHaveLength(1)
      expect(restTokens(emulator).at(-1)).toBe(emulator.currentAccessToken)
      expect(next.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    })
  })
}
