import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { type PortalEmulatorProcess, startPortalEmulatorProcess } from '../../src/testing/index.js'
import { type Backend, type Opened, redisClusterBackend, redisServerBackend } from './backends.js'
import type { WorkerConfig } from './worker.js'
import { Worker } from './worker-process.js'

/** A pair the client sees as expired, whose access token the emulator refuses as expired too. */
async function expiredPair(emulator: PortalEmulatorProcess): Promise<PortalOAuthParams> {
  const pair = await emulator.issueAuthParams()
  await emulator.expireAccessTokens()
  return { ...pair, expires: Math.floor(Date.now() / 1000) - 60 }
}

async function refreshRequests(emulator: PortalEmulatorProcess): Promise<number> {
  const log = await emulator.getLog()
  return log.filter((entry) => entry.kind === 'token' && entry.grantType === 'refresh_token').length
}

const backends: Backend[] = [redisServerBackend, redisClusterBackend]

for (const backend of backends) {
  describe.skipIf(!backend.available)(`processes sharing ${backend.name}`, () => {
    let opened: Opened
    let emulator: PortalEmulatorProcess | undefined
    const workers: Worker[] = []
    beforeAll(async () => {
      opened = await backend.open()
    }, 60_000)
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((worker) => worker.stop()))
      await emulator?.close()
      emulator = undefined
    })
    afterAll(async () => {
      await opened?.close()
    })

    function start(pair: PortalOAuthParams, count: number, extra: Partial<WorkerConfig> = {}): Worker[] {
      const target = emulator!
      const started = Array.from(
        { length: count },
        () =>
          new Worker({
            nodes: opened.redis!.nodes,
            cluster: backend === redisClusterBackend,
            pair,
            secret: { clientId: target.clientId, clientSecret: target.clientSecret },
            ...extra,
          }),
      )
      workers.push(...started)
      return started
    }

    async function storedRefreshToken(memberId: string): Promise<string | undefined> {
      const store = new RedisStore(opened.client())
      try {
        return (await store.load(memberId))?.refreshToken
      } finally {
        await store.close()
      }
    }

    it('four processes from one expired pair: exactly one refresh request, every call succeeds', async () => {
      emulator = await startPortalEmulatorProcess()
      const pair = await expiredPair(emulator)
      const four = start(pair, 4)
      await Promise.all(four.map((worker) => worker.next('ready')))
      const done = await Promise.all(four.map((worker) => worker.run(10)))
      expect(done.flatMap((result) => result.failed)).toEqual([])
      expect(done.reduce((sum, result) => sum + result.ok, 0)).toBe(40)
      expect(await refreshRequests(emulator)).toBe(1)
      // The refresh callback ran once, in the process that refreshed.
      expect(done.reduce((sum, result) => sum + result.callbacks, 0)).toBe(1)
      const { refreshToken } = await emulator.currentTokens()
      expect(new Set(done.map((result) => result.refreshToken))).toEqual(new Set([refreshToken]))
      expect(await storedRefreshToken(pair.memberId)).toBe(refreshToken)
    })

    it('a lock holder killed before it sends its refresh: the others go on after the lock TTL, the pair intact', async () => {
      emulator = await startPortalEmulatorProcess()
      const pair = await expiredPair(emulator)
      const options = { lockTtl: 1_500, refreshTimeout: 1_000 }
      const [holder] = start(pair, 1, { ...options, hold: true })
      await holder!.next('ready')
      holder!.send({ type: 'go', calls: 1 })
      await holder!.next('holding')
      holder!.child.kill('SIGKILL')
      await holder!.exited
      // The dead holder still holds the lock: nobody may refresh before its TTL ends.
      const checkedAt = Date.now()
      const ttl = Number(await opened.redis!.cli(['-c', 'PTTL', `portal-oauth:{${pair.memberId}}:lock`]))
      expect(ttl).toBeGreaterThan(0)
      const others = start(pair, 3, options)
      await Promise.all(others.map((worker) => worker.next('ready')))
      const done = await Promise.all(others.map((worker) => worker.run(6)))
      expect(done.flatMap((result) => result.failed)).toEqual([])
      expect(await refreshRequests(emulator)).toBe(1)
      const [refresh] = (await emulator.getLog()).filter((entry) => entry.grantType === 'refresh_token')
      expect(refresh!.at).toBeGreaterThanOrEqual(checkedAt + ttl - 5)
      const { refreshToken } = await emulator.currentTokens()
      expect(refreshToken).toEqual(expect.any(String))
      expect(await storedRefreshToken(pair.memberId)).toBe(refreshToken)
      expect((await emulator.getLog()).filter((entry) => entry.errorCode === 'invalid_grant')).toHaveLength(0)
    })

    it('FLUSHALL mid-run, then the access tokens expire: every call succeeds, one refresh request, store seeded', async () => {
      emulator = await startPortalEmulatorProcess()
      const pair = await emulator.issueAuthParams()
      const four = start(pair, 4)
      await Promise.all(four.map((worker) => worker.next('ready')))
      const first = await Promise.all(four.map((worker) => worker.run(6)))
      expect(first.flatMap((result) => result.failed)).toEqual([])
      await opened.redis!.flushAll()
      await emulator.expireAccessTokens()
      const second = await Promise.all(four.map((worker) => worker.run(6)))
      expect(second.flatMap((result) => result.failed)).toEqual([])
      expect(await refreshRequests(emulator)).toBe(1)
      const { refreshToken } = await emulator.currentTokens()
      expect(await storedRefreshToken(pair.memberId)).toBe(refreshToken)
    })

    it("four processes sharing the bucket: no QUERY_LIMIT_EXCEEDED, paced to the portal's rate", async () => {
      const rateLimit = { burstLimit: 8, drainRate: 10 }
      emulator = await startPortalEmulatorProcess({ rateLimit })
      const pair = await emulator.issueAuthParams()
      // Headroom for a test run that shares two cores with other test files: a request may reach the portal up to
      // half a second after its slot was granted.
      const four = start(pair, 4, { rateLimit, bucketMargin: 500 })
      await Promise.all(four.map((worker) => worker.next('ready')))
      const started = Date.now()
      const done = await Promise.all(four.map((worker) => worker.run(10)))
      const elapsed = Date.now() - started
      expect(done.flatMap((result) => result.failed)).toEqual([])
      const log = await emulator.getLog()
      expect(log.filter((entry) => entry.errorCode === 'QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
      expect(log.filter((entry) => entry.kind === 'rest')).toHaveLength(40)
      // 40 requests through a bucket of 8 draining 10/s cannot all leave before (40 - 8) / 10 s: they were paced.
      expect(elapsed).toBeGreaterThanOrEqual(((40 - rateLimit.burstLimit) / rateLimit.drainRate) * 1000 - 500)
    })
  })
}
