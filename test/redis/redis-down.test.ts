import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PortalFleet, PortalOAuth, type PortalOAuthOptions, type TokenStore } from '../../src/index.js'
import type { RedisStoreOptions } from '../../src/redis.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { type Backend, nodeRedisServerBackend, type Opened, redisServerBackend } from './backends.js'
import type { RedisUnderTest } from './redis-server.js'

/** The store's command timeout here: the first failure costs it, no later call waits for it. */
const COMMAND_TIMEOUT_MS = 2_000

/** How Redis becomes unreachable, and how it comes back. */
interface Fault {
  name: string
  begin(redis: RedisUnderTest): Promise<void>
  end(redis: RedisUnderTest): Promise<void>
}

const FAULTS: Fault[] = [
  {
    // Connections stay open and nothing is answered: every command waits for its timeout.
    name: 'Redis hangs (SIGSTOP, then SIGCONT)',
    begin: async (redis) => redis.pause(),
    end: async (redis) => redis.resume(),
  },
  {
    // Nothing on the port: connections are refused until it is started again, empty.
    name: 'Redis refuses connections (killed, then started again)',
    begin: (redis) => redis.kill!(),
    end: (redis) => redis.restart!(),
  },
]

const backends: Backend[] = [redisServerBackend, nodeRedisServerBackend]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`When Redis is down (${backend.name})`, () => {
    let opened: Opened
    let emulator: PortalEmulator | undefined
    let down: Fault | null = null
    const portals: PortalOAuth[] = []
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      if (down) await down.end(opened.redis!)
      down = null
      await Promise.all(portals.splice(0).map((portal) => portal.destroy()))
      await emulator?.close()
      emulator = undefined
    })
    afterAll(async () => {
      await opened?.close()
    })

    async function begin(fault: Fault): Promise<void> {
      await fault.begin(opened.redis!)
      down = fault
      // Slots leased by the call before are used without asking the store for 40 ms: the next call asks.
      await sleep(100)
    }

    async function end(fault: Fault): Promise<void> {
      await fault.end(opened.redis!)
      down = null
    }

    /** A client of `target`'s portal on a new store (its own connection: another process, as far as Redis can tell). */
    function client(
      target: PortalEmulator,
      pair: ReturnType<PortalEmulator['issueAuthParams']>,
      storeOptions: RedisStoreOptions | TokenStore,
      options: PortalOAuthOptions = {},
    ): { portal: PortalOAuth; store: TokenStore } {
      const store =
        'load' in storeOptions
          ? storeOptions
          : opened.store({
              commandTimeout: COMMAND_TIMEOUT_MS,
              logger: createMemoryLogger(),
              ...storeOptions,
            })
      const portal = new PortalOAuth(
        pair,
        { clientId: target.clientId, clientSecret: target.clientSecret },
        { logger: createMemoryLogger(), ...options, store },
      )
      portals.push(portal)
      return { portal, store }
    }

    /** How long a call on `portal` takes, ms; it must succeed. */
    async function timedCall(portal: PortalOAuth): Promise<number> {
      const started = performance.now()
      const result = await portal.actions.v2.call.make({ method: 'profile' })
      expect(result.isSuccess, result.isSuccess ? '' : result.getErrorMessages().join('; ')).toBe(true)
      return performance.now() - started
    }

    for (const fault of FAULTS) {
      it(`${fault.name}: after the first failure calls on a valid token go on without waiting for it, one warning; back to the shared bucket and pair once it answers`, async () => {
        emulator = await startPortalEmulator()
        const target = emulator
        const pair = target.issueAuthParams()
        const storeLog = createMemoryLogger()
        const portalLog = createMemoryLogger()
        const { portal, store } = client(target, pair, { logger: storeLog }, { logger: portalLog })
        await timedCall(portal)
        expect(store.health?.state).toBe('up')

        await begin(fault)
        // The first call meets the failure (at most the command timeout); it goes on with the pair held.
        await timedCall(portal)
        expect(store.health?.state).not.toBe('up')
        // A client made during the outage on the process's store reads nothing either: the store said it is down.
        const fresh = client(target, pair, store, { logger: portalLog })
        const later: number[] = []
        for (let index = 0; index < 3; index += 1)
          later.push(await timedCall(portal), await timedCall(fresh.portal))
        // None of them waited for Redis: each settled within a fraction of the command timeout.
        for (const took of later) expect(took).toBeLessThan(COMMAND_TIMEOUT_MS / 2)
        expect(target.log.restRequests()).toHaveLength(8)
        // One warning once a probe confirmed the outage, one line, naming the failure; the clients logged nothing
        // about the store.
        await expect
          .poll(() => store.health?.state, { timeout: 2 * COMMAND_TIMEOUT_MS })
          .toMatch(/down|probing/)
        const warnings = storeLog.lines.filter((line) => line.level === 'warn')
        expect(warnings).toHaveLength(1)
        expect(warnings[0]?.context).toBeUndefined()
        expect(warnings[0]?.message).toMatch(
          /^RedisStore: Redis is unreachable \(RedisStore (load|takeSlot): .+\); calls go on with the pairs held, paced at 0\.25 of each portal's bucket, and refreshes wait for it; probing it every 1000 ms$/,
        )
        expect(portalLog.lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([])

        await end(fault)
        await store.health?.whenUp()
        expect(storeLog.lines.filter((line) => line.level === 'info').map((line) => line.message)).toEqual([
          expect.stringMatching(
            /^RedisStore: Redis answers again after \d+\.\d s; back to the shared pairs, lock and buckets$/,
          ),
        ])
        // Shared state again: the next call takes its slot in Redis, and the pair is in the store (put back into a
        // server restarted empty).
        const bucket = `portal-oauth:{${pair.memberId}}:bucket`
        await opened.client().del(bucket)
        await timedCall(portal)
        expect(await opened.client().exists(bucket)).toBe(1)
        await expect.poll(async () => (await store.load(pair.memberId))?.refreshToken).toBe(pair.refreshToken)
      }, 40_000)
    }

    it('an outage over before a probe fails is said once, as it ends', async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      const storeLog = createMemoryLogger()
      const { portal, store } = client(target, target.issueAuthParams(), {
        logger: storeLog,
        outageCooldown: 200,
      })
      await timedCall(portal)
      await begin(FAULTS[0]!)
      // The first call meets the failure after the command timeout; the probe then waits, Redis answers it sooner.
      await timedCall(portal)
      expect(store.health?.state).toBe('suspect')
      await sleep(COMMAND_TIMEOUT_MS / 4)
      await end(FAULTS[0]!)
      await store.health?.whenUp()
      expect(storeLog.lines.map(({ level, message }) => ({ level, message }))).toEqual([
        {
          level: 'warn',
          message: expect.stringMatching(
            /^RedisStore: Redis did not answer for \d+\.\d s \(RedisStore (load|takeSlot): no answer within 2000 ms\); calls went on with the pairs held, paced at 0\.25 of each portal's bucket; it answers again$/,
          ),
        },
      ])
    }, 30_000)

    it('two processes going local at once stay under the portal limit together, each paced at outageShare of the bucket', async () => {
      // The portal allows a burst of 5 and 2.5 requests a second; the clients are told 4 and 2: each of two going
      // local with its whole bucket would send 8 at once.
      emulator = await startPortalEmulator({ rateLimit: { burstLimit: 5, drainRate: 2.5 } })
      const target = emulator
      const pair = target.issueAuthParams()
      const options = { restrictionParams: { rateLimit: { burstLimit: 4, drainRate: 2 } } }
      const processes = [0, 1].map(() => client(target, pair, { outageShare: 0.5 }, options))
      await Promise.all(processes.map(({ portal }) => timedCall(portal)))
      await begin(FAULTS[1]!)
      // Each store learns Redis is down from its first failure.
      await Promise.all(processes.map(({ portal }) => timedCall(portal)))
      for (const { store } of processes) expect(store.health?.state).not.toBe('up')
      // Both buckets and the portal's drain before the burst.
      await sleep(2_500)
      target.log.clear()
      const calls = processes.flatMap(({ portal }) => Array.from({ length: 5 }, () => timedCall(portal)))
      await Promise.all(calls)
      expect(target.log.restRequests()).toHaveLength(10)
      expect(target.log.rejected('QUERY_LIMIT_EXCEEDED')).toEqual([])
    }, 40_000)

    it('a refresh while Redis is down waits for it within its deadline, never without the lock: two processes, one refresh request', async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      const pair = target.issueAuthParams()
      const processes = [0, 1].map(() => client(target, pair, {}, { refreshTimeout: 6_000 }))
      await Promise.all(processes.map(({ portal }) => timedCall(portal)))
      await begin(FAULTS[1]!)
      await Promise.all(processes.map(({ portal }) => timedCall(portal)))
      // The portal refuses the access token: each call needs a refresh, which needs the lock.
      target.expireAccessTokens()
      const calls = processes.map(({ portal }) => timedCall(portal))
      await sleep(1_500)
      expect(target.log.refreshRequests()).toEqual([])
      await end(FAULTS[1]!)
      await Promise.all(calls)
      expect(target.log.refreshRequests()).toHaveLength(1)
      for (const { portal } of processes)
        expect(portal.auth.getParams().refreshToken).toBe(target.currentRefreshToken)
      await expect
        .poll(async () => (await processes[0]!.store.load(pair.memberId))?.refreshToken)
        .toBe(target.currentRefreshToken)
      expect(await opened.client().exists(`portal-oauth:{${pair.memberId}}:lock`)).toBe(0)
    }, 40_000)

    it('refreshAuth() while Redis stays down: REQUEST_TIMEOUT at its deadline, naming the store that is down; nothing refreshed', async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      const { portal, store } = client(
        target,
        target.issueAuthParams(),
        {},
        {
          refreshTimeout: 1_000,
          refreshRetries: 0,
        },
      )
      await timedCall(portal)
      await begin(FAULTS[0]!)
      await timedCall(portal)
      expect(store.health?.state).not.toBe('up')
      const error = await portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
      expect(error).toMatchObject({ code: 'REQUEST_TIMEOUT' })
      expect((error as Error).message).toMatch(
        /^token refresh: no answer within 1000 ms; token store failed taking the refresh lock \(no refresh is sent without it\): RedisStore lock: not sent, Redis is unreachable \(RedisStore (load|takeSlot): no answer within 2000 ms\); sent again once a probe is answered$/,
      )
      expect(target.log.refreshRequests()).toEqual([])
    }, 30_000)

    it("PortalFleet while Redis is down: a held client's get() and calls go on; a get() that must read the store and an event reject at once, naming it", async () => {
      emulator = await startPortalEmulator()
      const target = emulator
      const store = opened.store({ commandTimeout: COMMAND_TIMEOUT_MS, logger: createMemoryLogger() })
      const fleet = new PortalFleet({
        oAuthSecret: { clientId: target.clientId, clientSecret: target.clientSecret },
        store,
        logger: createMemoryLogger(),
      })
      try {
        await fleet.handleEvent(target.installEvent('ONAPPINSTALL'))
        await timedCall(await fleet.get(target.memberId))
        await begin(FAULTS[1]!)
        await timedCall(await fleet.get(target.memberId))
        expect(store.health?.state).not.toBe('up')
        const started = performance.now()
        expect(await timedCall(await fleet.get(target.memberId))).toBeLessThan(COMMAND_TIMEOUT_MS / 2)
        const refusal =
          /^token store failed .+: RedisStore (load|replace): not sent, Redis is unreachable \(RedisStore (load|takeSlot): no answer within 2000 ms\); sent again once a probe is answered$/
        const notHeld = await fleet.get('not-held-portal').catch((thrown: unknown) => thrown)
        expect(notHeld).toMatchObject({
          code: 'JSSDK_TOKEN_STORE_FAILED',
          message: expect.stringMatching(refusal),
        })
        const event = await fleet
          .handleEvent(target.installEvent('ONAPPUPDATE'))
          .catch((thrown: unknown) => thrown)
        expect(event).toMatchObject({
          code: 'JSSDK_TOKEN_STORE_FAILED',
          message: expect.stringMatching(refusal),
        })
        // None of them waited for Redis.
        expect(performance.now() - started).toBeLessThan(COMMAND_TIMEOUT_MS)
      } finally {
        await fleet.destroy()
      }
    }, 30_000)
  })
}
