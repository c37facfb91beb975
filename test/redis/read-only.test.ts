import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PortalOAuth } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type Backend, nodeRedisServerBackend, type Opened, redisServerBackend } from './backends.js'
import { freePort } from './redis-server.js'

// Redis refuses every write (READONLY) while it answers reads: an ioredis client left on an old master after a
// failover sees exactly this. No refresh is sent without the lock, and nobody waits for one that cannot come.

const backends: Backend[] = [redisServerBackend, nodeRedisServerBackend]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`Redis that refuses writes (${backend.name})`, () => {
    let opened: Opened
    let emulator: PortalEmulator | undefined
    let portal: PortalOAuth | undefined
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      await opened.redis!.cli(['REPLICAOF', 'NO', 'ONE'])
      await portal?.destroy()
      await emulator?.close()
      portal = undefined
      emulator = undefined
    })
    afterAll(async () => {
      await opened?.close()
    })

    it('refreshAuth() and the calls waiting for the refresh reject with JSSDK_TOKEN_STORE_FAILED naming READONLY; nothing is refreshed; once Redis takes writes the next call refreshes', async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      portal = new PortalOAuth(
        target.issueAuthParams(),
        { clientId: target.clientId, clientSecret: target.clientSecret },
        { logger: createMemoryLogger(), store: opened.store() },
      )
      expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      // A replica of a master nobody listens on: reads are served, writes answer READONLY.
      await opened.redis!.cli(['REPLICAOF', '127.0.0.1', String(await freePort())])

      const refreshed = await portal.auth.refreshAuth().catch((error: unknown) => error)
      expect(refreshed).toMatchObject({ name: 'SdkError', code: 'JSSDK_TOKEN_STORE_FAILED' })
      expect((refreshed as Error).message).toMatch(/^token store failed taking the refresh lock .*READONLY/)

      target.expireAccessTokens()
      // A call with the default timeout gets the refresh's failure, not its own timeout.
      const waited = await portal.actions.v2.call.make({ method: 'profile' }).catch((error: unknown) => error)
      expect(waited).toMatchObject({ code: 'JSSDK_TOKEN_STORE_FAILED' })
      expect((waited as Error).message).toContain('READONLY')
      // One whose own timeout ends first says what the refresh is waiting for.
      const short = await portal.actions.v2.call
        .make({ method: 'profile', timeout: 300 })
        .catch((error: unknown) => error)
      expect(short).toMatchObject({ code: 'REQUEST_TIMEOUT' })
      expect((short as Error).message).toContain('READONLY')
      expect(target.log.refreshRequests()).toHaveLength(0)

      await opened.redis!.cli(['REPLICAOF', 'NO', 'ONE'])
      // The short call's refresh may still be failing its last attempt: the one after it goes through.
      await expect
        .poll(
          async () =>
            (await portal!.actions.v2.call.make({ method: 'profile' }).catch(() => null))?.isSuccess,
          {
            timeout: 15_000,
            interval: 200,
          },
        )
        .toBe(true)
      expect(target.log.refreshRequests()).toHaveLength(1)
      expect((await opened.store().load(target.memberId))?.refreshToken).toBe(target.currentRefreshToken)
    }, 60_000)
  })
}
