import { hostname } from 'node:os'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { RedisStore, RedisStoreInventory } from '../../src/redis.js'
import {
  type RedisUnderTest,
  redisInstalled,
  redisRequired,
  startRedisServer,
} from '../redis/redis-server.js'
import { runCli } from './cli-process.js'

const now = Math.floor(Date.now() / 1000)

/** A pair whose every secret names itself, so that the output can be searched for it. */
function pair(memberId: string, expiresIn: number, expires = now + expiresIn): PortalOAuthParams {
  return {
    applicationToken: `app-token-of-${memberId}-secret`,
    userId: 1,
    memberId,
    accessToken: `access-token-of-${memberId}-secret`,
    refreshToken: `refresh-token-of-${memberId}-secret`,
    expires,
    expiresIn,
    scope: 'crm,user',
    domain: `${memberId}.portal.example`,
    clientEndpoint: `https://${memberId}.portal.example/rest/`,
    serverEndpoint: 'https://oauth.bitrix.info/rest/',
    status: 'P',
  }
}

describe.skipIf(!redisInstalled && !redisRequired)('portal-oauth fleet (a real redis-server)', () => {
  let redis: RedisUnderTest
  let client: Redis
  let store: RedisStore
  let url = ''
  const secrets: string[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    const [node] = redis.nodes
    url = `redis://${node!.host}:${node!.port}`
    client = new Redis({ host: node!.host, port: node!.port })
    store = new RedisStore(client, { prefix: 'fleet:' })
    const pairs = {
      valid: pair('a-valid', 3600),
      expiring: pair('b-expiring', 3600, now + 120),
      expired: pair('c-expired', 3600, now - 60),
      dead: pair('d-dead', 3600),
      uninstalled: pair('e-uninstalled', 3600),
    }
    for (const held of Object.values(pairs)) {
      await store.replace(held)
      secrets.push(held.accessToken, held.refreshToken, held.applicationToken)
    }
    await store.markDead('d-dead', pairs.dead.refreshToken, {
      code: 'invalid_grant',
      description: '',
      status: 400,
    })
    await store.remove('e-uninstalled')
    expect(await store.lock('a-valid', 60_000)).toEqual(expect.any(String))
    // Another prefix is another fleet.
    await new RedisStore(client, { prefix: 'other:' }).replace(pair('z-elsewhere', 3600))
  }, 30_000)

  afterAll(async () => {
    await store?.close()
    client?.disconnect()
    await redis?.stop()
  })

  function expectRedacted(text: string): void {
    for (const secret of secrets) expect(text).not.toContain(secret)
    expect(text).not.toContain('-secret')
  }

  it('status: every portal of the prefix with its state, expiry, last refresh, scope and lock holder, as JSON', async () => {
    const run = await runCli(['fleet', 'status', '--store', url, '--prefix', 'fleet:'])
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expectRedacted(run.stdout)
    const report = JSON.parse(run.stdout) as { portals: Array<Record<string, unknown>>; counts: unknown }
    expect(report.portals.map((portal) => [portal.memberId, portal.state])).toEqual([
      ['a-valid', 'valid'],
      ['b-expiring', 'expiring'],
      ['c-expired', 'expired'],
      ['d-dead', 'dead'],
      ['e-uninstalled', 'uninstalled'],
    ])
    expect(report.portals[0]).toEqual({
      memberId: 'a-valid',
      state: 'valid',
      domain: 'a-valid.portal.example',
      expires: new Date((now + 3600) * 1000).toISOString(),
      expiresInSeconds: expect.any(Number),
      lastRefresh: new Date(now * 1000).toISOString(),
      scope: 'crm,user',
      status: 'P',
      deadReason: null,
      lock: { holder: expect.stringMatching(/^[^:]+:\d+$/), ttlMs: expect.any(Number) },
    })
    // The lock was taken by this process.
    expect(report.portals[0]).toMatchObject({ lock: { holder: `${hostname()}:${process.pid}` } })
    expect(report.portals[3]).toMatchObject({ deadReason: 'invalid_grant', lock: null })
    expect(report.portals[4]).toMatchObject({ domain: null, expires: null, scope: null })
    expect(report.counts).toEqual({ valid: 1, expiring: 1, expired: 1, dead: 1, uninstalled: 1, total: 5 })
  }, 30_000)

  it('--table: a row per portal and the counts at the end; --expiring-within moves the line', async () => {
    const run = await runCli(['fleet', 'status', '--store', url, '--prefix', 'fleet:', '--table'])
    expect(run.code).toBe(0)
    expectRedacted(run.stdout)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^MEMBER\s+DOMAIN\s+STATE\s+EXPIRES IN\s+LAST REFRESH\s+SCOPE\s+LOCK$/)
    expect(lines[1]).toMatch(
      /^a-valid\s+a-valid\.portal\.example\s+valid\s+(59m|1h 0m)\s+\S+Z\s+crm,user\s+\S+:\d+ \(\d+s\)$/,
    )
    expect(lines[4]).toMatch(/^d-dead\s+.*dead \(invalid_grant\)/)
    expect(lines.at(-1)).toBe('5 portals: 1 valid, 1 expiring, 1 expired, 1 dead, 1 uninstalled')
    const wider = await runCli([
      'fleet',
      'status',
      '--store',
      url,
      '--prefix',
      'fleet:',
      '--expiring-within',
      '7200',
    ])
    expect(JSON.parse(wider.stdout).counts).toMatchObject({ valid: 0, expiring: 2 })
  }, 30_000)

  it('show: one portal, JSON; an unknown one exits 1', async () => {
    const run = await runCli(['fleet', 'show', 'd-dead', '--store', url, '--prefix', 'fleet:'])
    expect(run.code).toBe(0)
    expectRedacted(run.stdout)
    expect(JSON.parse(run.stdout)).toMatchObject({
      memberId: 'd-dead',
      state: 'dead',
      deadReason: 'invalid_grant',
    })
    const unknown = await runCli(['fleet', 'show', 'nobody', '--store', url, '--prefix', 'fleet:'])
    expect(unknown).toMatchObject({ code: 1, stdout: '' })
    expect(unknown.stderr).toContain(`holds no portal nobody`)
  }, 30_000)

  it('the library reads the same inventory: RedisStoreInventory from portal-oauth/redis', async () => {
    const inventory = new RedisStoreInventory(client, { prefix: 'fleet:' })
    expect(await inventory.memberIds()).toEqual([
      'a-valid',
      'b-expiring',
      'c-expired',
      'd-dead',
      'e-uninstalled',
    ])
    expect(await new RedisStoreInventory(client, { prefix: 'other:' }).memberIds()).toEqual(['z-elsewhere'])
    expect(await inventory.read('e-uninstalled')).toEqual({
      memberId: 'e-uninstalled',
      pair: null,
      removed: true,
      dead: null,
      lock: null,
    })
  })

  it('wrong command lines exit 2; an unreachable store exits 1', async () => {
    for (const [args, message] of [
      [['fleet'], 'name the action, status or show'],
      [['fleet', 'status'], '--store URL is required'],
      [['fleet', 'show', '--store', url], 'show needs the member id'],
      [
        ['fleet', 'status', '--store', url, '--expiring-within', 'soon'],
        '--expiring-within must be a number',
      ],
    ] as const) {
      const run = await runCli(args)
      expect({ args, code: run.code }).toEqual({ args, code: 2 })
      expect(run.stderr).toContain(message)
    }
    const closed = await runCli(['fleet', 'status', '--store', 'redis://127.0.0.1:1'])
    expect(closed.code).toBe(1)
    expect(closed.stderr).toContain('cannot connect')
  }, 30_000)
})
