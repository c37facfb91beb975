import { type ChildProcess, fork } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { type PortalEmulatorProcess, startPortalEmulatorProcess } from '../../src/testing/index.js'
import { type Backend, type Opened, redisClusterBackend, redisServerBackend } from './backends.js'
import type { FromWorker, ToWorker, WorkerConfig } from './worker.js'

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url))
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** A worker process and the messages it sent. */
class Worker {
  readonly child: ChildProcess
  readonly #seen: FromWorker[] = []
  readonly #waiting: Array<{ type: FromWorker['type']; resolve: (message: FromWorker) => void }> = []
  readonly exited: Promise<void>

  constructor(config: WorkerConfig) {
    this.child = fork(WORKER, [JSON.stringify(config)], {
      execArgv: ['--import', TSX],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()))
    this.child.on('message', (message: FromWorker) => {
      const index = this.#waiting.findIndex((waiter) => waiter.type === message.type)
      if (index < 0) this.#seen.push(message)
      else this.#waiting.splice(index, 1)[0]!.resolve(message)
    })
  }

  /** The next message of `type` (one already received counts). */
  next<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    const index = this.#seen.findIndex((message) => message.type === type)
    if (index >= 0) return Promise.resolve(this.#seen.splice(index, 1)[0] as Extract<FromWorker, { type: T }>)
    return new Promise((resolve) =>
      this.#waiting.push({
        type,
        resolve: (message) => resolve(message as Extract<FromWorker, { type: T }>),
      }),
    )
  }

  send(message: ToWorker): void {
    this.child.send(message)
  }

  async run(calls: number): Promise<Extract<FromWorker, { type: 'done' }>> {
    const done = this.next('done')
    this.send({ type: 'go', calls })
    return done
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.child.connected) this.send({ type: 'exit' })
      else this.child.kill('SIGKILL')
    }
    await this.exited
  }
}

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
      const four = start(pair, 4, { rateLimit })
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
