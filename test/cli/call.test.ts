import { spawnSync } from 'node:child_process'
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { type RedisUnderTest, redisInstalled, startRedisServer } from '../redis/redis-server.js'
import { runCli, spawnCli, usePairFixture } from './cli-process.js'

const fixture = usePairFixture('call', ['--list-rows', '130'])
const { env, log } = fixture

async function readPair(): Promise<PortalOAuthParams> {
  return JSON.parse(await readFile(fixture.pairFile, 'utf8')) as PortalOAuthParams
}

/** Neither the client secret nor any token of the emulator's pairs appears in `text`. */
function expectNoSecret(text: string, pairs: PortalOAuthParams[]): void {
  expect(text).not.toContain(fixture.emulator.info.clientSecret)
  for (const pair of pairs) {
    expect(text).not.toContain(pair.accessToken)
    expect(text).not.toContain(pair.refreshToken)
  }
}

describe('portal-oauth call', () => {
  it('prints the result as JSON on stdout and exits 0', async () => {
    const run = await runCli(['call', 'user.get', '{"ID": 2}', '--pair', fixture.pairFile], env())
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ ID: '2', NAME: 'User 2' })])
    const [sent] = await log('rest')
    expect(sent).toMatchObject({
      restMethod: 'user.get',
      token: fixture.emulator.info.pair.accessToken,
      status: 200,
    })
    expect(await readPair()).toEqual(fixture.emulator.info.pair)
  }, 30_000)

  it('after an expiry it refreshes once and rewrites the pair file (owner-only) with the new pair', async () => {
    await fixture.emulator.control('POST', '/expire-tokens')
    const run = await runCli(['call', 'profile', '--pair', fixture.pairFile, '--full'], env())
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ result: { ID: '1' }, time: expect.any(Object) })
    expect(await log('token')).toEqual([expect.objectContaining({ grantType: 'refresh_token', status: 200 })])
    const current = (await fixture.emulator.control('GET', '/tokens')).body as {
      accessToken: string
      refreshToken: string
    }
    const written = await readPair()
    expect(written).toMatchObject({ accessToken: current.accessToken, refreshToken: current.refreshToken })
    expect(written.accessToken).not.toBe(fixture.emulator.info.pair.accessToken)
    expect((await stat(fixture.pairFile)).mode & 0o777).toBe(0o600)
    // The next run starts from the written pair: no refresh.
    const again = await runCli(['call', 'profile', '--pair', fixture.pairFile], env())
    expect(again.code).toBe(0)
    expect(await log('token')).toHaveLength(1)
    expectNoSecret(run.stdout + run.stderr + again.stdout + again.stderr, [
      fixture.emulator.info.pair,
      written,
    ])
  }, 30_000)

  it('a pair file in a directory that cannot be written fails the command before its refresh token is spent', async () => {
    const locked = join(fixture.dir, 'locked')
    await mkdir(locked)
    const lockedPair = join(locked, 'tokens.json')
    await writeFile(lockedPair, JSON.stringify(fixture.emulator.info.pair))
    // No new file may appear in the directory: chattr +i holds for root too, chmod for anyone else.
    const immutable = spawnSync('chattr', ['+i', locked]).status === 0
    if (!immutable) await chmod(locked, 0o500)
    try {
      await fixture.emulator.control('POST', '/expire-tokens')
      const before = await readFile(lockedPair, 'utf8')
      const run = await runCli(['call', 'profile', '--pair', lockedPair], env())
      expect(run).toMatchObject({ code: 1, stdout: '' })
      expect(run.stderr).toBe(
        `portal-oauth call: --pair ${lockedPair}: cannot create its lock file ${lockedPair}.lock (${immutable ? 'EPERM' : 'EACCES'}): ` +
          'a refreshed pair could not be written beside it either, so nothing was sent\n',
      )
      // Nothing reached the portal or the OAuth server: the refresh token in the file still works.
      expect(await log('token')).toEqual([])
      expect(await log('rest')).toEqual([])
      expect(await readFile(lockedPair, 'utf8')).toBe(before)
      expectNoSecret(run.stdout + run.stderr, [fixture.emulator.info.pair])
    } finally {
      if (immutable) spawnSync('chattr', ['-i', locked])
      else await chmod(locked, 0o700)
    }
  }, 30_000)

  it('a refused refresh exits 1 with the reason and leaves the pair file as it was', async () => {
    await fixture.emulator.control('POST', '/fail-refresh', {
      error: 'invalid_grant',
      error_description: 'revoked',
    })
    await fixture.emulator.control('POST', '/expire-tokens')
    const before = await readFile(fixture.pairFile, 'utf8')
    const run = await runCli(['call', 'profile', '--pair', fixture.pairFile], env())
    expect(run).toMatchObject({ code: 1, stdout: '' })
    expect(run.stderr).toBe(
      `portal-oauth call: the OAuth server refused the refresh token of --pair ${fixture.pairFile} (invalid_grant: revoked, HTTP 400): ` +
        'it was spent or revoked. A program that holds a copy of this pair (another host, a backup restored) may have ' +
        `refreshed it first; re-authorise the application and put its new pair in ${fixture.pairFile}\n`,
    )
    expect(await readFile(fixture.pairFile, 'utf8')).toBe(before)
    expectNoSecret(run.stderr, [fixture.emulator.info.pair])
  }, 30_000)

  it('a REST error exits 1 naming the method and the portal message, stdout empty', async () => {
    await fixture.emulator.control('PUT', '/methods/app.thing.get', {
      error: { code: 'ERROR_NOT_FOUND', description: 'Thing not found', status: 404 },
    })
    const run = await runCli(['call', 'app.thing.get', '{"id": 5}', '--pair', fixture.pairFile], env())
    expect(run).toMatchObject({ code: 1, stdout: '' })
    expect(run.stderr).toBe('portal-oauth call: app.thing.get: Thing not found (ERROR_NOT_FOUND)\n')
  }, 30_000)

  it('--all walks a v2 and a v3 list: every row on stdout, the count on stderr (not a terminal)', async () => {
    const v2 = await runCli(
      [
        'call',
        'crm.item.list',
        '{"entityTypeId": 2}',
        '--all',
        '--id-key',
        'id',
        '--result-key',
        'items',
        '--pair',
        fixture.pairFile,
      ],
      env(),
    )
    expect(v2.code).toBe(0)
    const rows = JSON.parse(v2.stdout) as Array<{ id: number }>
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: 130 }, (_, index) => index + 1))
    expect(v2.stderr).toBe('crm.item.list: 130 rows\n')
    expect((await log('rest')).length).toBe(3)
    const v3 = await runCli(
      ['call', 'tasks.task.list', '--api', 'v3', '--all', '--pair', fixture.pairFile],
      env(),
    )
    expect(v3.code).toBe(0)
    expect(JSON.parse(v3.stdout)).toHaveLength(130)
    expect(v3.stderr).toBe('tasks.task.list: 130 rows\n')
  }, 30_000)

  it('a bad pair file fails naming the file and the field', async () => {
    const { accessToken: _dropped, ...noAccess } = fixture.emulator.info.pair
    await writeFile(fixture.pairFile, JSON.stringify(noAccess))
    const missing = await runCli(['call', 'profile', '--pair', fixture.pairFile], env())
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(
      `--pair ${fixture.pairFile}: accessToken must be a non-empty string; it is missing`,
    )
    await writeFile(fixture.pairFile, JSON.stringify({ ...fixture.emulator.info.pair, expires: 'soon' }))
    const wrongType = await runCli(['call', 'profile', '--pair', fixture.pairFile], env())
    expect(wrongType.stderr).toContain(
      `--pair ${fixture.pairFile}: expires must be a Unix time in seconds; got string`,
    )
    await writeFile(fixture.pairFile, '{ not json')
    const notJson = await runCli(['call', 'profile', '--pair', fixture.pairFile], env())
    expect(notJson.stderr).toContain(`--pair ${fixture.pairFile}: the file is not JSON`)
    const absent = await runCli(['call', 'profile', '--pair', join(fixture.dir, 'absent.json')], env())
    expect(absent.code).toBe(1)
    expect(absent.stderr).toContain('cannot read it (ENOENT)')
    expectNoSecret(missing.stderr + wrongType.stderr, [fixture.emulator.info.pair])
    expect(await log('rest')).toEqual([])
  }, 30_000)

  it('an untrusted OAuth server is refused before any request: exit 1, naming PORTAL_OAUTH_TRUSTED_SERVERS', async () => {
    const { PORTAL_OAUTH_TRUSTED_SERVERS: _trust, ...untrusted } = env()
    const run = await runCli(['call', 'profile', '--pair', fixture.pairFile], untrusted)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('PORTAL_OAUTH_TRUSTED_SERVERS')
    expect(await log('rest')).toEqual([])
  }, 30_000)

  it('wrong command lines exit 2: no method, params not an object, a secret flag, no credentials, no pair', async () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, string]> = [
      [['call', '--pair', fixture.pairFile], env(), 'the method is missing'],
      [['call', 'profile', '[1]', '--pair', fixture.pairFile], env(), 'params must be a JSON object'],
      [
        ['call', 'profile', '--pair', fixture.pairFile, '--api', 'v4'],
        env(),
        "--api must be v2 or v3, got 'v4'",
      ],
      [
        ['call', 'profile', '--pair', fixture.pairFile, '--refresh-token=abc'],
        env(),
        '--refresh-token is refused',
      ],
      [['call', 'profile', '--pair', fixture.pairFile], {}, 'set PORTAL_OAUTH_CLIENT_ID or give --client-id'],
      [
        ['call', 'profile', '--pair', fixture.pairFile],
        { PORTAL_OAUTH_CLIENT_ID: 'id' },
        'set PORTAL_OAUTH_CLIENT_SECRET or give --client-secret-file',
      ],
      [['call', 'profile'], env(), 'give the pair with --pair FILE or with --store URL --member ID'],
      [['call', 'profile', '--store', 'http://x'], env(), '--store must be a redis:// or rediss:// URL'],
    ]
    for (const [args, environment, message] of cases) {
      const run = await runCli(args, environment)
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' })
      expect(run.stderr).toContain(message)
    }
  }, 60_000)

  it('reads the client secret from --client-secret-file', async () => {
    const secretFile = join(fixture.dir, 'secret')
    await writeFile(secretFile, `${fixture.emulator.info.clientSecret}\n`)
    await fixture.emulator.control('POST', '/expire-tokens')
    const run = await runCli(
      ['call', 'profile', '--pair', fixture.pairFile, '--client-secret-file', secretFile],
      {
        PORTAL_OAUTH_CLIENT_ID: fixture.emulator.info.clientId,
        PORTAL_OAUTH_TRUSTED_SERVERS: fixture.emulator.info.oauthServer,
      },
    )
    expect(run.code).toBe(0)
    expect(await log('token')).toEqual([expect.objectContaining({ status: 200 })])
  }, 30_000)
})

describe.skipIf(!redisInstalled)('portal-oauth call --store', () => {
  let redis: RedisUnderTest
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    await redis?.stop()
  })

  it('takes the pair from the store and keeps the refreshed one there', async () => {
    const [node] = redis.nodes
    const client = new Redis({ host: node!.host, port: node!.port })
    const store = new RedisStore(client, { prefix: 'cli:' })
    try {
      await store.replace(fixture.emulator.info.pair)
      await fixture.emulator.control('POST', '/expire-tokens')
      const url = `redis://${node!.host}:${node!.port}`
      const args = [
        'call',
        'profile',
        '--store',
        url,
        '--member',
        fixture.emulator.info.memberId,
        '--prefix',
        'cli:',
      ]
      const run = await runCli(args, env())
      expect(run.code).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ ID: '1' })
      const current = (await fixture.emulator.control('GET', '/tokens')).body as { refreshToken: string }
      expect((await store.load(fixture.emulator.info.memberId))?.refreshToken).toBe(current.refreshToken)
      const unknown = await runCli([...args.slice(0, 4), '--member', 'nobody', '--prefix', 'cli:'], env())
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain(`--store ${url} holds no pair of member nobody`)
    } finally {
      await store.close()
      client.disconnect()
    }
  }, 30_000)
})

describe('portal-oauth call, interrupted', () => {
  it('SIGINT cancels a call in flight: exit 1 at once, while the portal still holds the request', async () => {
    await fixture.emulator.control('POST', '/hold-requests', { method: 'profile' })
    const child = spawnCli(['call', 'profile', '--pair', fixture.pairFile], env())
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    expect((await fixture.emulator.control('POST', '/wait-for-held')).body).toEqual({ held: true })
    child.kill('SIGINT')
    expect(await exited).toBe(1)
    expect(stderr).toBe("portal-oauth call: v2 profile: cancelled by the caller's signal\n")
    await fixture.emulator.control('POST', '/release-held')
  }, 30_000)
})
