import { createHash } from 'node:crypto'
import { type AddressInfo, createConnection, createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PortalOAuth, type PortalOAuthParams, type RefreshAuthPayload } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock } from '../helpers.js'
import {
  type Backend,
  nodeRedisClusterBackend,
  nodeRedisServerBackend,
  type Opened,
  redisClusterBackend,
  redisServerBackend,
} from './backends.js'
import { Redis } from './ioredis-under-test.js'
import { redisInstalled } from './redis-server.js'

describe.skipIf(!redisInstalled)('RedisStore on one server', () => {
  let opened: Opened
  beforeAll(async () => {
    opened = await redisServerBackend.open()
  })
  afterAll(async () => {
    await opened?.close()
  })

  function pair(memberId: string): PortalOAuthParams {
    return {
      applicationToken: 'app-token-secret',
      userId: 1,
      memberId,
      accessToken: 'access-token-secret',
      refreshToken: 'refresh-token-secret',
      expires: 2_000_000_000,
      expiresIn: 3600,
      scope: 'crm',
      domain: 'portal.example',
      clientEndpoint: 'https://portal.example/rest/',
      serverEndpoint: 'https://oauth.example/rest/',
      status: 'L',
    }
  }

  it('keeps the pair as JSON under the prefix, every key of a portal in one hash slot', async () => {
    const store = opened.store({ prefix: 'app1:' })
    const held = pair('a1b2')
    await store.save(held)
    await store.lock(held.memberId, 60_000)
    await store.takeSlot(held.memberId, { burstLimit: 5, drainRate: 2 })
    const keys = (await opened.redis!.cli(['--raw', 'KEYS', 'app1:*'])).split('\n').sort()
    expect(keys).toEqual(['app1:{a1b2}:bucket', 'app1:{a1b2}:lock', 'app1:{a1b2}:pair'])
    expect(JSON.parse(await opened.redis!.cli(['--raw', 'GET', 'app1:{a1b2}:pair']))).toEqual(held)
    const slots = new Set(
      await Promise.all(keys.map((key) => opened.redis!.cli(['CLUSTER', 'KEYSLOT', key]))),
    )
    expect(slots.size).toBe(1)
  })

  it('stores with different prefixes share nothing', async () => {
    const one = opened.store({ prefix: 'one:' })
    const two = opened.store({ prefix: 'two:' })
    await one.save(pair('shared-id'))
    expect(await two.load('shared-id')).toBeNull()
  })

  it('a prefix with braces, or an option out of range, is refused', () => {
    const client = opened.client()
    expect(() => new RedisStore(client, { prefix: 'a{b}:' })).toThrow(/prefix/)
    expect(() => new RedisStore(client, { bucketMargin: -1 })).toThrow(/bucketMargin/)
    expect(() => new RedisStore(client, { pollInterval: 0 })).toThrow(/pollInterval/)
    expect(() => new RedisStore(client, { pairTtl: 59_999 })).toThrow(/options\.pairTtl/)
  })

  it('with replicas, a server that has none takes the lock and the save all the same, and says so once, naming the cause', async () => {
    const logger = createMemoryLogger()
    const store = opened.store({ replicas: 1, commandTimeout: 200, logger })
    const held = pair('replicas-none')
    const owner = await store.lock(held.memberId, 60_000)
    expect(owner).toEqual(expect.any(String))
    expect(await opened.redis!.cli(['GET', 'portal-oauth:{replicas-none}:lock'])).toBe(owner)
    expect(await store.save(held)).toEqual(held)
    expect(await store.unlock(held.memberId, owner!)).toBe(true)
    // Each WAIT leaves room, within the 200 ms command timeout, for the server answering it up to 100 ms late.
    for (let round = 0; round < 8; round += 1) {
      const again = await store.lock(held.memberId, 60_000)
      expect(again).toEqual(expect.any(String))
      expect(await store.save(held)).toEqual(held)
      expect(await store.unlock(held.memberId, again!)).toBe(true)
    }
    const warnings = logger.lines.filter((line) => line.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toMatch(
      /^RedisStore lock: 0 of 1 replica\(s\) acknowledged the write within 50 ms \(options\.replicas\); the master has 0 replica\(s\) connected\. Going on without them/,
    )
    expect(() => opened.store({ replicas: 17 })).toThrow(/options\.replicas/)
    expect(() => opened.store({ logger: { warn() {} } as never })).toThrow(/options\.logger/)
  })

  it('every key expires by itself: the pair after pairTtl (180 days by default), renewed by each save', async () => {
    const ttl = async (key: string): Promise<number> => Number(await opened.redis!.cli(['PTTL', key]))
    const held = pair('ttl-default')
    const store = opened.store({ prefix: 'ttl:' })
    await store.save(held)
    await store.lock(held.memberId, 60_000)
    // A bucket draining a slot in 10 s: it still holds slots when asked, also on a machine loaded by other work.
    await store.takeSlot(held.memberId, { burstLimit: 5, drainRate: 0.1 })
    expect(await ttl('ttl:{ttl-default}:bucket')).toBeGreaterThan(0)
    const day = 24 * 3_600_000
    expect(await ttl('ttl:{ttl-default}:pair')).toBeGreaterThan(179 * day)
    expect(await ttl('ttl:{ttl-default}:pair')).toBeLessThanOrEqual(180 * day)
    expect(await ttl('ttl:{ttl-default}:lock')).toBeGreaterThan(0)
    const short = opened.store({ prefix: 'ttl:', pairTtl: 120_000 })
    const renewed = { ...held, expires: held.expires + 3_600, refreshToken: 'refresh-renewed' }
    await short.save(renewed)
    expect(await ttl('ttl:{ttl-default}:pair')).toBeLessThanOrEqual(120_000)
    // Saving an older pair keeps the newer one and renews it too; so does replace().
    await opened.redis!.cli(['PEXPIRE', 'ttl:{ttl-default}:pair', '5000'])
    expect(await short.save(held)).toEqual(renewed)
    expect(await ttl('ttl:{ttl-default}:pair')).toBeGreaterThan(100_000)
    await opened.redis!.cli(['PEXPIRE', 'ttl:{ttl-default}:pair', '5000'])
    await short.replace(held)
    expect(await ttl('ttl:{ttl-default}:pair')).toBeGreaterThan(100_000)
    // An uninstall leaves only its mark, which expires as a pair would.
    await short.remove(held.memberId)
    const left = (await opened.redis!.cli(['--raw', 'KEYS', 'ttl:*'])).split('\n').filter(Boolean)
    expect(left).toEqual(['ttl:{ttl-default}:removed'])
    expect(await ttl('ttl:{ttl-default}:removed')).toBeGreaterThan(100_000)
    expect(await ttl('ttl:{ttl-default}:removed')).toBeLessThanOrEqual(120_000)
  })

  it('runs its scripts again after the server forgot them (SCRIPT FLUSH, a restart)', async () => {
    const store = opened.store()
    const held = pair('scripts')
    await store.save(held)
    await opened.redis!.cli(['SCRIPT', 'FLUSH'])
    expect(await store.save({ ...held, expires: held.expires + 1 })).toMatchObject({
      expires: held.expires + 1,
    })
    const owner = await store.lock(held.memberId, 60_000)
    await opened.redis!.cli(['SCRIPT', 'FLUSH'])
    expect(await store.unlock(held.memberId, owner!)).toBe(true)
  })

  it('an unreadable stored value reads as no pair and is overwritten by the next save', async () => {
    const store = opened.store()
    await opened.redis!.cli(['SET', 'portal-oauth:{garbled}:pair', '{"not":"a pair"'])
    expect(await store.load('garbled')).toBeNull()
    expect(await store.save(pair('garbled'))).toEqual(pair('garbled'))
    expect(await store.load('garbled')).toEqual(pair('garbled'))
  })

  it('a Redis failure rejects with the reason and never with a token', async () => {
    const store = opened.store()
    // A hash where the pair belongs: every command on it fails with WRONGTYPE.
    await opened.redis!.cli(['HSET', 'portal-oauth:{wrongtype}:pair', 'field', 'value'])
    const error = await store.save(pair('wrongtype')).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Error)
    const text = JSON.stringify(error, Object.getOwnPropertyNames(error as object)) + String(error)
    expect(text).toMatch(/WRONGTYPE/)
    expect(text).not.toMatch(/secret/)
  })

  it('an unreachable server rejects each operation after the command timeout instead of hanging', async () => {
    const client = new Redis(1, '127.0.0.1', { maxRetriesPerRequest: null, lazyConnect: true })
    client.on('error', () => undefined)
    const store = new RedisStore(client, { commandTimeout: 200 })
    try {
      await expect(store.load('any')).rejects.toThrow(/no answer within 200 ms/)
      await expect(store.save(pair('any'))).rejects.toThrow(/no answer within 200 ms/)
    } finally {
      await store.close()
      client.disconnect()
    }
  })

  it('a client of none of the supported kinds is refused, naming the kinds', () => {
    expect(() => new RedisStore({} as never)).toThrow(
      /RedisStore: client.*must be an ioredis Redis or Cluster \(5 or 6\), or a node-redis client, cluster or sentinel/,
    )
  })

  it('a dead mark that is unreadable, or names another token, reads as none; one without a description reads as empty', async () => {
    const store = opened.store()
    const held = pair('dead-marks')
    await store.save(held)
    const key = 'portal-oauth:{dead-marks}:dead'
    const digest = createHash('sha256').update(held.refreshToken).digest('base64url')
    await opened.redis!.cli(['SET', key, 'not json'])
    expect(await store.deadReason!(held.memberId, held.refreshToken)).toBeNull()
    await opened.redis!.cli([
      'SET',
      key,
      JSON.stringify({ token: 'other', code: 'invalid_grant', status: 400 }),
    ])
    expect(await store.deadReason!(held.memberId, held.refreshToken)).toBeNull()
    await opened.redis!.cli([
      'SET',
      key,
      JSON.stringify({ token: digest, code: 'invalid_grant', status: 400 }),
    ])
    expect(await store.deadReason!(held.memberId, held.refreshToken)).toEqual({
      code: 'invalid_grant',
      description: '',
      status: 400,
    })
  })

  it('a client that rejects with something other than an Error: the failure says so and quotes none of it', async () => {
    // The supported clients reject with Errors only; a stand-in client plays one that does not.
    const subscriber = {
      on: () => subscriber,
      subscribe: async () => 0,
      unsubscribe: async () => 0,
      disconnect() {},
    }
    const client = {
      call: () => Promise.reject('refresh-token-secret'),
      duplicate: () => subscriber,
    }
    const logger = createMemoryLogger()
    const store = new RedisStore(client as never, { logger })
    const failure = await store.load('any').then(
      () => null,
      (error: unknown) => error,
    )
    expect(failure).toMatchObject({ name: 'RedisStoreError', message: 'RedisStore load: unknown error' })
    expect(String((failure as Error).message)).not.toContain('secret')
    // The outage it starts is said once, naming the same words, and quotes none of it either.
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: expect.stringContaining('RedisStore: Redis is unreachable (RedisStore load: unknown error)'),
      },
    ])
    await store.close()
  })

  it('a lock whose SET the server ran after the store gave up on it is released behind it', async () => {
    const store = opened.store({ commandTimeout: 200 })
    // Connected and the scripts known before the server freezes.
    await store.unlock('late-lock', 'nobody')
    opened.redis!.pause()
    try {
      await expect(store.lock('late-lock', 60_000)).rejects.toThrow(
        'RedisStore lock: no answer within 200 ms',
      )
    } finally {
      opened.redis!.resume()
    }
    // The late SET ran, then the release sent behind it: no lock is left, another holder takes it at once.
    await expect.poll(() => opened.redis!.cli(['EXISTS', 'portal-oauth:{late-lock}:lock'])).toBe('0')
    expect(await opened.store().lock('late-lock', 60_000)).toEqual(expect.any(String))
  })

  it('each option out of range is refused in its own words; the edges of each range are taken', () => {
    const client = opened.client()
    const refusals: Array<[object, string]> = [
      [{ prefix: 5 }, 'RedisStore: options.prefix must be a string without braces'],
      [
        { bucketMargin: 1.5 },
        'RedisStore: options.bucketMargin must be an integer from 0 to 600000 ms (10 minutes), got 1.5',
      ],
      [
        { pollInterval: 0 },
        'RedisStore: options.pollInterval must be an integer from 1 to 600000 ms (10 minutes), got 0',
      ],
      [
        { commandTimeout: 600_001 },
        'RedisStore: options.commandTimeout must be an integer from 1 to 600000 ms (10 minutes), got 600001',
      ],
      [
        { pairTtl: 315_360_000_001 },
        'RedisStore: options.pairTtl must be an integer from 60000 to 315360000000 ms (87600 hours), got 315360000001',
      ],
      [{ replicas: -1 }, 'RedisStore: options.replicas must be an integer from 0 to 16, got -1'],
      [
        { slotBatchMs: 1001 },
        'RedisStore: options.slotBatchMs must be an integer from 0 to 1000 ms (1 second), got 1001',
      ],
      [
        { slotBatchMs: '5' },
        'RedisStore: options.slotBatchMs must be an integer from 0 to 1000 ms (1 second), got string',
      ],
    ]
    for (const [options, message] of refusals) {
      expect(() => new RedisStore(client, options)).toThrow(expect.objectContaining({ message }))
    }
    for (const options of [
      { pairTtl: 60_000 },
      { pairTtl: 315_360_000_000 },
      { bucketMargin: 0, pollInterval: 1, commandTimeout: 1 },
      { commandTimeout: 600_000, replicas: 16 },
      { slotBatchMs: 0 },
      { slotBatchMs: 1000 },
    ]) {
      expect(() => new RedisStore(client, options)).not.toThrow()
    }
  })

  it('a saved pair lives pairTtl, 180 days by default; bucketMargin keeps that much drain free', async () => {
    const ttl = async (memberId: string): Promise<number> =>
      Number(await opened.redis!.cli(['PTTL', `portal-oauth:{${memberId}}:pair`]))
    await opened.store({ pairTtl: 60_000 }).save(pair('short-lived'))
    expect(await ttl('short-lived')).toBeGreaterThan(50_000)
    expect(await ttl('short-lived')).toBeLessThanOrEqual(60_000)
    await opened.store().save(pair('default-lived'))
    expect(await ttl('default-lived')).toBeGreaterThan(180 * 24 * 3_600_000 - 60_000)
    expect(await ttl('default-lived')).toBeLessThanOrEqual(180 * 24 * 3_600_000)
    // Two requests at 0.01 a second: the default 250 ms margin leaves room for one at once, no margin for both.
    const bucket = { burstLimit: 2, drainRate: 0.01 }
    const withMargin = opened.store()
    expect((await withMargin.takeSlot('margin-default', bucket)).granted).toBe(1)
    expect((await withMargin.takeSlot('margin-default', bucket)).granted).toBe(0)
    const noMargin = opened.store({ bucketMargin: 0 })
    expect((await noMargin.takeSlot('margin-none', bucket)).granted).toBe(1)
    expect((await noMargin.takeSlot('margin-none', bucket)).granted).toBe(1)
    expect((await noMargin.takeSlot('margin-none', bucket)).granted).toBe(0)
  })

  it('a wait subscribes to its portal, once for all its waiters, and for a poll interval after the last; it ends at the poll interval', async () => {
    const store = opened.store({ pollInterval: 60_000 })
    const subscribers = async (channel: string): Promise<string> =>
      (await opened.redis!.cli(['PUBSUB', 'NUMSUB', `portal-oauth:{${channel}}:changed`])).split('\n')[1] ??
      ''
    // The first wait ends once Redis confirmed its subscription, long before its minute: its caller looks again.
    const started = performance.now()
    await store.changed('subscribed', 60_000)
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(await subscribers('subscribed')).toBe('1')
    // The waits after it share the subscription and end only on a change, their timeout or their signal.
    const controller = new AbortController()
    const long = store.changed('subscribed', 60_000, controller.signal).then(() => 'ended')
    await store.changed('subscribed', 100)
    expect(await Promise.race([long, sleep(100).then(() => 'waiting')])).toBe('waiting')
    expect(await subscribers('subscribed')).toBe('1')
    controller.abort()
    expect(await long).toBe('ended')
    // With no wait left, the subscription is kept a poll interval (a minute here), then given back (200 ms here).
    expect(await subscribers('subscribed')).toBe('1')
    const brief = opened.store({ pollInterval: 200 })
    await brief.changed('lingering', 60_000)
    expect(await subscribers('lingering')).toBe('1')
    await expect.poll(() => subscribers('lingering'), { timeout: 5_000 }).toBe('0')
    // Without any announcement, a wait on a confirmed subscription ends at the poll interval.
    const polling = opened.store({ pollInterval: 100 })
    await polling.changed('polled', 60_000)
    const pollStarted = performance.now()
    await polling.changed('polled', 60_000)
    expect(performance.now() - pollStarted).toBeGreaterThanOrEqual(90)
    expect(performance.now() - pollStarted).toBeLessThan(5_000)
  })

  it("a change announced before a wait's subscription took effect ends that wait once it does, not at the poll interval", async () => {
    const [node] = opened.redis!.nodes
    // Every connection through this proxy but the first reaches Redis 300 ms late: the store's subscriber connection,
    // which its first wait opens, subscribes after the change below was announced.
    let connections = 0
    const proxy = createServer((socket) => {
      connections += 1
      const upstream = createConnection(node!.port, node!.host)
      socket.on('error', () => undefined)
      upstream.on('error', () => undefined)
      socket.on('close', () => upstream.destroy())
      upstream.on('close', () => socket.destroy())
      socket.pause()
      setTimeout(
        () => {
          socket.pipe(upstream)
          upstream.pipe(socket)
          socket.resume()
        },
        connections === 1 ? 0 : 300,
      )
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const client = new Redis((proxy.address() as AddressInfo).port, '127.0.0.1')
    client.on('error', () => undefined)
    const store = new RedisStore(client, { pollInterval: 5_000 })
    const other = opened.store()
    try {
      const held = pair('announced-early')
      await store.save(held)
      const started = performance.now()
      const waiting = store.changed(held.memberId, 60_000)
      await other.save({ ...held, expires: held.expires + 1, refreshToken: 'refresh-announced-early' })
      await waiting
      const tookMs = performance.now() - started
      // Ended when the late subscription took effect: after its 300 ms, long before the 5 s poll.
      expect(tookMs).toBeGreaterThanOrEqual(250)
      expect(tookMs).toBeLessThan(2_500)
      expect((await store.load(held.memberId))?.refreshToken).toBe('refresh-announced-early')
    } finally {
      await store.close()
      client.disconnect()
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
    }
  })

  it('close() closes the subscriber connection it opened; the client stays usable', async () => {
    // Counted by connection name, and only once the client has connected: other tests' clients on this server
    // may still be connecting or closing (every test file shares one process under the mutation runner).
    const [node] = opened.redis!.nodes
    const name = `close-test-${process.pid}`
    const client = new Redis(node!.port, node!.host, { connectionName: name })
    client.on('error', () => undefined)
    const named = async (): Promise<number> =>
      (await opened.redis!.cli(['CLIENT', 'LIST']))
        .split('\n')
        .filter((line) => line.includes(` name=${name} `)).length
    try {
      expect(await client.ping()).toBe('PONG')
      const store = new RedisStore(client, { pollInterval: 50 })
      expect(await named()).toBe(1)
      await store.changed('closing', 60_000)
      expect(await named()).toBe(2)
      await store.close()
      await expect.poll(named).toBe(1)
      expect(await client.ping()).toBe('PONG')
    } finally {
      client.disconnect()
    }
  })
})

const clusterAndServer: Backend[] = [
  redisServerBackend,
  redisClusterBackend,
  nodeRedisServerBackend,
  nodeRedisClusterBackend,
]

for (const backend of clusterAndServer) {
  describe.skipIf(!backend.available)(`PortalOAuth on ${backend.name}`, () => {
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

    function client(
      target: PortalEmulator,
      pair: PortalOAuthParams,
      persisted: RefreshAuthPayload[],
      now?: () => number,
    ): PortalOAuth {
      const portal = new PortalOAuth(
        pair,
        { clientId: target.clientId, clientSecret: target.clientSecret },
        { logger: createMemoryLogger(), store: opened.store(), ...(now ? { now } : {}) },
      )
      portal.setCallbackRefreshAuth((payload) => {
        persisted.push(payload)
      })
      portals.push(portal)
      return portal
    }

    it('two instances on two connections from one expired pair: one refresh request, every call succeeds', async () => {
      const clock = createTestClock()
      emulator = await startPortalEmulator({ now: clock.now })
      const pair = emulator.issueAuthParams()
      const persisted: RefreshAuthPayload[] = []
      const one = client(emulator, pair, persisted, clock.now)
      const two = client(emulator, pair, persisted, clock.now)
      clock.advance(3_601_000)
      const calls = [one, two].flatMap((portal) =>
        Array.from({ length: 10 }, (_, index) =>
          index % 2 === 0
            ? portal.actions.v2.call.make({ method: 'profile' })
            : portal.actions.v3.call.make({ method: 'tasks.task.list' }),
        ),
      )
      const results = await Promise.all(calls)
      expect(results.every((result) => result.isSuccess)).toBe(true)
      expect(emulator.log.refreshRequests()).toHaveLength(1)
      expect(persisted).toHaveLength(1)
      expect(one.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
      expect(two.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
      const stored = await opened.store().load(pair.memberId)
      expect(stored?.refreshToken).toBe(emulator.currentRefreshToken)
    })

    it('FLUSHALL between refreshes: no call hangs, the store is seeded again, the pair keeps refreshing', async () => {
      emulator = await startPortalEmulator()
      const pair = emulator.issueAuthParams()
      const persisted: RefreshAuthPayload[] = []
      const one = client(emulator, pair, persisted)
      const two = client(emulator, pair, persisted)
      expect((await one.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      await one.auth.refreshAuth()
      await opened.loseData([pair.memberId])
      expect(await opened.store().load(pair.memberId)).toBeNull()
      await one.auth.refreshAuth()
      expect((await opened.store().load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
      // The second instance takes the pair the first one refreshed from the store: no request of its own.
      expect((await two.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      expect(two.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
      expect(emulator.log.refreshRequests()).toHaveLength(2)
      await opened.loseData([pair.memberId])
      const results = await Promise.all([
        one.actions.v2.call.make({ method: 'profile' }),
        two.actions.v3.call.make({ method: 'tasks.task.list' }),
      ])
      expect(results.every((result) => result.isSuccess)).toBe(true)
      await two.auth.refreshAuth()
      expect(emulator.log.rejected('invalid_grant')).toHaveLength(0)
      expect(emulator.log.refreshRequests()).toHaveLength(3)
      expect(persisted).toHaveLength(3)
      expect((await opened.store().load(pair.memberId))?.refreshToken).toBe(emulator.currentRefreshToken)
    })

    it('FLUSHALL while an instance holds a spent pair: it dies, then lives again on the pair the other puts back', async () => {
      const clock = createTestClock()
      emulator = await startPortalEmulator({ now: clock.now })
      const pair = emulator.issueAuthParams()
      const persisted: RefreshAuthPayload[] = []
      const fresh = client(emulator, pair, persisted, clock.now)
      const stale = client(emulator, pair, persisted, clock.now)
      await Promise.all([fresh, stale].map((portal) => portal.actions.v2.call.make({ method: 'profile' })))
      // Ten minutes later `fresh` rotates the pair; `stale` still holds the first one, whose refresh token is spent.
      clock.advance(600_000)
      await fresh.auth.refreshAuth()
      await opened.loseData([pair.memberId])
      emulator.expireAccessTokens()
      // `stale` puts its older pair into the empty store, refreshes with the spent token and learns it is dead.
      await expect(stale.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
        code: 'invalid_grant',
      })
      expect(stale.tokenState).toBe('dead')
      // `fresh` sees an older pair in the store at its next call and puts its own back (newest wins)...
      expect((await fresh.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 50))
      // ... and `stale`, dead, looks in the store at its next call and takes it: nothing lost, no reinstall.
      expect((await stale.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      expect(stale.tokenState).toBe('valid')
      expect(stale.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
      expect(fresh.auth.getParams().refreshToken).toBe(emulator.currentRefreshToken)
    })
  })
}
