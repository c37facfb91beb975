/**
 * One pair file, several `portal-oauth call` processes at once (overlapping cron jobs): they take turns under the
 * lock beside the file, so that one refreshes and the others use the pair it wrote.
 */
import { spawnSync } from 'node:child_process'
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { type CliEmulator, runCli, startCliEmulator } from './cli-process.js'

let dir = ''
let emulator: CliEmulator
let pairFile = ''

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portal-oauth-shared-pair-'))
  pairFile = join(dir, 'tokens.json')
  emulator = await startCliEmulator()
  await writeFile(pairFile, JSON.stringify(emulator.info.pair))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function env(): NodeJS.ProcessEnv {
  return {
    PORTAL_OAUTH_CLIENT_ID: emulator.info.clientId,
    PORTAL_OAUTH_CLIENT_SECRET: emulator.info.clientSecret,
    PORTAL_OAUTH_TRUSTED_SERVERS: emulator.info.oauthServer,
  }
}

async function log(kind: string): Promise<RequestLogEntry[]> {
  return (await emulator.control('GET', `/log?kind=${kind}`)).body as RequestLogEntry[]
}

async function lockFileExists(): Promise<boolean> {
  return access(`${pairFile}.lock`).then(
    () => true,
    () => false,
  )
}

describe('portal-oauth call on one pair file from several processes', () => {
  it('three calls at once on an expired pair all succeed, with one refresh, and the file holds the new pair', async () => {
    await emulator.control('POST', '/expire-tokens')
    const runs = await Promise.all(
      [1, 2, 3].map((id) =>
        runCli(['call', 'user.get', JSON.stringify({ ID: id }), '--pair', pairFile], env()),
      ),
    )
    expect(runs.map((run) => ({ code: run.code, stderr: run.stderr }))).toEqual([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ])
    expect(runs.map((run) => (JSON.parse(run.stdout) as Array<{ ID: string }>)[0]?.ID).sort()).toEqual([
      '1',
      '2',
      '3',
    ])
    expect(await log('token')).toEqual([expect.objectContaining({ grantType: 'refresh_token', status: 200 })])
    const current = (await emulator.control('GET', '/tokens')).body as { refreshToken: string }
    const written = JSON.parse(await readFile(pairFile, 'utf8')) as PortalOAuthParams
    expect(written.refreshToken).toBe(current.refreshToken)
    // The two that came after the refresh used the new pair: no REST request was refused for an expired token.
    expect((await log('rest')).filter((entry) => entry.status !== 200)).toHaveLength(1)
    expect(await lockFileExists()).toBe(false)
  }, 60_000)

  it('a lock left by a process that is gone is taken over', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid
    await writeFile(
      `${pairFile}.lock`,
      JSON.stringify({ host: hostname(), pid: gone, since: new Date().toISOString() }),
    )
    const run = await runCli(['call', 'profile', '--pair', pairFile], env())
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(run.stdout)).toMatchObject({ ID: '1' })
    expect(await lockFileExists()).toBe(false)
  }, 30_000)
})
