/**
 * One pair file, several `portal-oauth call` processes at once (overlapping cron jobs): they take turns under the
 * lock beside the file, so that one refreshes and the others use the pair it wrote.
 */
import { spawnSync } from 'node:child_process'
import { access, readFile, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { describe, expect, it } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import { runCli, usePairFixture } from './cli-process.js'

const fixture = usePairFixture('shared-pair')
const { env, log } = fixture

async function lockFileExists(): Promise<boolean> {
  return access(`${fixture.pairFile}.lock`).then(
    () => true,
    () => false,
  )
}

describe('portal-oauth call on one pair file from several processes', () => {
  it('three calls at once on an expired pair all succeed, with one refresh, and the file holds the new pair', async () => {
    await fixture.emulator.control('POST', '/expire-tokens')
    const runs = await Promise.all(
      [1, 2, 3].map((id) =>
        runCli(['call', 'user.get', JSON.stringify({ ID: id }), '--pair', fixture.pairFile], env()),
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
    const current = (await fixture.emulator.control('GET', '/tokens')).body as { refreshToken: string }
    const written = JSON.parse(await readFile(fixture.pairFile, 'utf8')) as PortalOAuthParams
    expect(written.refreshToken).toBe(current.refreshToken)
    // The two that came after the refresh used the new pair: no REST request was refused for an expired token.
    expect((await log('rest')).filter((entry) => entry.status !== 200)).toHaveLength(1)
    expect(await lockFileExists()).toBe(false)
  }, 60_000)

  it('a lock left by a process that is gone is taken over', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid
    await writeFile(
      `${fixture.pairFile}.lock`,
      JSON.stringify({ host: hostname(), pid: gone, since: new Date().toISOString() }),
    )
    const run = await runCli(['call', 'profile', '--pair', fixture.pairFile], env())
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(run.stdout)).toMatchObject({ ID: '1' })
    expect(await lockFileExists()).toBe(false)
  }, 30_000)
})
