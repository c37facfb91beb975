import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PortalOAuth, type RefreshAuthPayload } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock } from '../helpers.js'
import { nodeRedisServerBackend, type Opened, redisServerBackend } from './backends.js'

/**
 * `RedisStore({ replicas: 1 })` on a master that has no replica: the state of a master and one replica behind
 * Sentinel after a failover, until the old master comes back. The refresh goes on, with one warning.
 */
for (const backend of [redisServerBackend, nodeRedisServerBackend]) {
  describe.skipIf(!backend.available)(`replicas: 1 on a server without replica (${backend.name})`, () => {
    let opened: Opened
    let emulator: PortalEmulator | undefined
    const portals: PortalOAuth[] = []
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      await Promise.all(portals.splice(0).map((portal) => portal.destroy()))
      await emulator?.close()
      emulator = undefined
    })
    afterAll(async () => {
      await opened?.close()
    })

    it('expiry after expiry, every call succeeds with one refresh request each; the store warns once, naming the cause', async () => {
      const clock = createTestClock()
      emulator = await startPortalEmulator({ now: clock.now })
      const pair = emulator.issueAuthParams()
      const storeLogger = createMemoryLogger()
      const store = opened.store({ replicas: 1, commandTimeout: 1_000, logger: storeLogger })
      const persisted: RefreshAuthPayload[] = []
      const instances = [0, 1].map(() => {
        const portal = new PortalOAuth(
          pair,
          { clientId: emulator!.clientId, clientSecret: emulator!.clientSecret },
          { store, logger: createMemoryLogger(), now: clock.now },
        )
        portal.setCallbackRefreshAuth((payload) => {
          persisted.push(payload)
        })
        portals.push(portal)
        return portal
      })
      for (let expiry = 1; expiry <= 3; expiry += 1) {
        clock.advance(3_601_000)
        const calls = instances.flatMap((portal) =>
          Array.from({ length: 5 }, () => portal.actions.v2.call.make({ method: 'profile' })),
        )
        const results = await Promise.all(calls)
        expect(results.map((result) => result.isSuccess)).toEqual(calls.map(() => true))
        expect(emulator.log.refreshRequests().map((entry) => entry.status)).toEqual(
          Array.from({ length: expiry }, () => 200),
        )
        expect(persisted.at(-1)?.b24OAuthParams.refreshToken).toBe(emulator.currentRefreshToken)
        expect((await store.load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
      }
      expect(persisted).toHaveLength(3)
      const warnings = storeLogger.lines.filter((line) => line.level === 'warn').map((line) => line.message)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(
        /^RedisStore (lock|save): 0 of 1 replica\(s\) acknowledged the write within 500 ms \(options\.replicas\); the master has 0 replica\(s\) connected\. Going on without them/,
      )
    }, 30_000)
  })
}
