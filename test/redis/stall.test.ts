import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ParamsFactory, PortalOAuth } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type Backend, type Opened, redisClusterBackend, redisServerBackend } from './backends.js'

/** How long Redis is frozen: longer than the store's command timeout, shorter than a call's timeout. */
const STALL_MS = 3_000
const COMMAND_TIMEOUT_MS = 500
/** The calls' own timeout: a refresh blocked for the lock's TTL (15 s) would fail every call waiting for it. */
const CALL_TIMEOUT_MS = 8_000
const ENTERPRISE = { burstLimit: 250, drainRate: 5 }

interface Outcome {
  ok: boolean
  code?: string
}

const backends: Backend[] = [redisServerBackend, redisClusterBackend]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`a Redis that stalls (${backend.name})`, () => {
    let opened: Opened
    let emulator: PortalEmulator | undefined
    const portals: PortalOAuth[] = []
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      opened.redis?.resume()
      await Promise.all(portals.splice(0).map((portal) => portal.destroy()))
      await emulator?.close()
      emulator = undefined
    })
    afterAll(async () => {
      await opened?.close()
    })

    it('the token expires while Redis is frozen: no call fails, none hangs, one refresh request, no lock left', async () => {
      // Enterprise limits: the calls of the test stay inside the portal's burst, so none waits for the bucket.
      emulator = await startPortalEmulator({ rateLimit: ENTERPRISE })
      const target = emulator
      const pair = target.issueAuthParams()
      const instances = [0, 1].map(() => {
        const portal = new PortalOAuth(
          pair,
          { clientId: target.clientId, clientSecret: target.clientSecret },
          {
            logger: createMemoryLogger(),
            store: opened.store({ commandTimeout: COMMAND_TIMEOUT_MS }),
            httpOptions: { timeout: CALL_TIMEOUT_MS },
            restrictionParams: ParamsFactory.getEnterprise(),
          },
        )
        portals.push(portal)
        return portal
      })
      const calls: Array<Promise<Outcome>> = []
      let calling = true
      const callers = instances.map(async (portal) => {
        while (calling) {
          calls.push(
            portal.actions.v2.call.make({ method: 'profile' }).then(
              (result) => ({ ok: result.isSuccess }),
              (error: { code?: string; message?: string }) => ({
                ok: false,
                code: `${error.code}: ${error.message}`,
              }),
            ),
          )
          await sleep(100)
        }
      })
      await sleep(300)
      opened.redis!.pause()
      target.expireAccessTokens()
      await sleep(STALL_MS)
      opened.redis!.resume()
      // Calls go on for a while after Redis answers again; every one of them must settle, and succeed.
      await sleep(2_000)
      calling = false
      await Promise.all(callers)
      const outcomes = await Promise.all(calls)
      expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([])
      expect(outcomes.length).toBeGreaterThan(80)
      expect(target.log.refreshRequests()).toHaveLength(1)
      for (const portal of instances)
        expect(portal.auth.getParams().refreshToken).toBe(target.currentRefreshToken)
      const stored = await opened.store().load(pair.memberId)
      expect(stored?.refreshToken).toBe(target.currentRefreshToken)
      // The lock of every attempt given up on during the stall was released when Redis ran it.
      expect(await opened.client().exists(`portal-oauth:{${pair.memberId}}:lock`)).toBe(0)
    }, 30_000)
  })
}
