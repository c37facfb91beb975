import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PortalOAuth } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import {
  type Backend,
  nodeRedisClusterBackend,
  nodeRedisServerBackend,
  type Opened,
  redisClusterBackend,
  redisServerBackend,
} from './backends.js'
import type { RedisUnderTest } from './redis-server.js'
import { Worker } from './worker-process.js'

/** How long Redis is out: longer than the store's command timeout, shorter than a call's timeout. */
const OUTAGE_MS = 3_000
const COMMAND_TIMEOUT_MS = 500
/** The calls' own timeout: a refresh blocked for the lock's TTL (15 s) would fail every call waiting for it. */
const CALL_TIMEOUT_MS = 8_000
const ENTERPRISE = { burstLimit: 250, drainRate: 5 }

/** An outage of Redis: how it starts and how it ends. */
interface Fault {
  name: string
  /** Whether the fault can be played on a cluster too. */
  cluster: boolean
  begin(redis: RedisUnderTest): Promise<void>
  end(redis: RedisUnderTest): Promise<void>
}

const FAULTS: Fault[] = [
  {
    // Connections stay open, commands wait unanswered, then run in order: a late lock must not block refreshes.
    name: 'frozen (SIGSTOP, then SIGCONT)',
    cluster: true,
    begin: async (redis) => redis.pause(),
    end: async (redis) => redis.resume(),
  },
  {
    // Connections are refused, then the server comes back empty: the pair goes back into it.
    name: 'killed, then restarted empty',
    cluster: false,
    begin: (redis) => redis.kill!(),
    end: (redis) => redis.restart!(),
  },
]

const backends: Backend[] = [
  redisServerBackend,
  redisClusterBackend,
  nodeRedisServerBackend,
  nodeRedisClusterBackend,
]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`Redis out while the token expires (${backend.name})`, () => {
    let opened: Opened
    let emulator: PortalEmulator | undefined
    const portals: PortalOAuth[] = []
    const workers: Worker[] = []
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      opened.redis?.resume()
      await Promise.all(workers.splice(0).map((worker) => worker.stop()))
      await Promise.all(portals.splice(0).map((portal) => portal.destroy()))
      await emulator?.close()
      emulator = undefined
    })
    afterAll(async () => {
      await opened?.close()
    })

    it('a call with a short timeout on a frozen Redis: its store reads wait what it has left, not the command timeout', async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      const portal = new PortalOAuth(
        target.issueAuthParams(),
        { clientId: target.clientId, clientSecret: target.clientSecret },
        // The store would wait 10 s for an answer; the call has 2 s (time for the first look at the store, the slot
        // request and the request itself, also on a loaded machine).
        { logger: createMemoryLogger(), store: opened.store({ commandTimeout: 10_000 }) },
      )
      portals.push(portal)
      opened.redis!.pause()
      const started = performance.now()
      const result = await portal.actions.v2.call.make({ method: 'profile', timeout: 2_000 })
      const took = performance.now() - started
      opened.redis!.resume()
      // The first look at the store and the slot request both gave up within the call's timeout; it went on with
      // the pair it holds, paced by its own bucket.
      expect(result.isSuccess).toBe(true)
      expect(took).toBeLessThan(5_000)
      expect(target.log.restRequests()).toHaveLength(1)
    }, 30_000)

    it('refreshAuth() on a frozen Redis: REQUEST_TIMEOUT naming the store that did not answer; nothing refreshed', async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      const portal = new PortalOAuth(
        target.issueAuthParams(),
        { clientId: target.clientId, clientSecret: target.clientSecret },
        {
          logger: createMemoryLogger(),
          store: opened.store({ commandTimeout: 300 }),
          refreshTimeout: 1_000,
          refreshRetries: 0,
        },
      )
      portals.push(portal)
      expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      opened.redis!.pause()
      const error = await portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
      opened.redis!.resume()
      expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT' })
      // The lock request is the first to get no answer; or, when an earlier read did (a first look at the store that
      // outlasted the command timeout, as a cluster's first connection can), the store was down and never sent it.
      const lock =
        'token refresh: no answer within 1000 ms; token store failed taking the refresh lock (no refresh is sent without it): RedisStore lock:'
      expect([
        `${lock} no answer within 300 ms`,
        `${lock} not sent, Redis is unreachable (RedisStore load: no answer within 300 ms); sent again once a probe is answered`,
      ]).toContain((error as Error).message)
      expect(target.log.refreshRequests()).toHaveLength(0)
    })

    const faults = FAULTS.filter((fault) => fault.cluster || backend.name.endsWith('(one server)'))
    for (const fault of faults) {
      it(`${fault.name}: no call of two processes fails, none hangs, one refresh request, the new pair stored, no lock left`, async () => {
        const redis = opened.redis!
        // Enterprise limits: the calls of the test stay inside the portal's burst, so none waits for the bucket.
        emulator = await startPortalEmulator({ rateLimit: ENTERPRISE })
        const target = emulator
        const pair = target.issueAuthParams()
        const started = [0, 1].map(
          () =>
            new Worker({
              nodes: redis.nodes,
              cluster: backend.cluster === true,
              client: backend.client ?? 'ioredis',
              pair,
              secret: { clientId: target.clientId, clientSecret: target.clientSecret },
              rateLimit: ENTERPRISE,
              commandTimeout: COMMAND_TIMEOUT_MS,
              callTimeout: CALL_TIMEOUT_MS,
            }),
        )
        workers.push(...started)
        await Promise.all(started.map((worker) => worker.next('ready')))
        for (const worker of started) worker.stream(100)
        await sleep(300)
        await fault.begin(redis)
        target.expireAccessTokens()
        await sleep(OUTAGE_MS)
        await fault.end(redis)
        // Calls go on for a while after Redis answers again; every one of them must settle, and succeed.
        await sleep(2_000)
        const streamed = await Promise.all(started.map((worker) => worker.stopStream()))
        expect(streamed.flatMap((outcome) => outcome.failed)).toEqual([])
        expect(streamed.reduce((sum, outcome) => sum + outcome.ok, 0)).toBeGreaterThan(40)
        expect(target.log.refreshRequests()).toHaveLength(1)
        for (const outcome of streamed) expect(outcome.refreshToken).toBe(target.currentRefreshToken)
        await expect
          .poll(async () => (await opened.store().load(pair.memberId))?.refreshToken)
          .toBe(target.currentRefreshToken)
        // The lock of every attempt given up on during the outage was released when Redis ran it.
        expect(await opened.client().exists(`portal-oauth:{${pair.memberId}}:lock`)).toBe(0)
      }, 30_000)
    }
  })
}
