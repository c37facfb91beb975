import { execFile } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
let workdir = ''

afterAll(async () => {
  if (workdir) await rm(workdir, { recursive: true, force: true })
})

it('npm pack gives a tarball that installs in an empty folder; its three entry points work there', async () => {
  workdir = await mkdtemp(join(tmpdir(), 'portal-oauth-pack-'))
  const packed = await run('npm', ['pack', '--pack-destination', workdir, '--silent'], {
    cwd: root,
    maxBuffer: 1 << 24,
  })
  const tarball = packed.stdout.trim().split('\n').at(-1) ?? ''
  expect(tarball).toMatch(/^portal-oauth-3\.0\.0\.tgz$/)
  const app = join(workdir, 'app')
  await run('mkdir', ['-p', app])
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', join(workdir, tarball)], {
    cwd: app,
    maxBuffer: 1 << 24,
  })
  // Only what users need is shipped: no tests, no sources of the scripts.
  const shipped = await readdir(join(app, 'node_modules', 'portal-oauth'))
  expect(shipped.sort()).toEqual(['LICENSE', 'README.md', 'dist', 'docs', 'package.json'].sort())
  await writeFile(
    join(app, 'main.js'),
    `
    import { PortalOAuth, EnumAppStatus } from 'portal-oauth'
    import { accessTokenMachine } from 'portal-oauth/machines'
    import { startPortalEmulator } from 'portal-oauth/testing'
    const emulator = await startPortalEmulator()
    const portal = new PortalOAuth(emulator.issueAuthParams(), { clientId: emulator.clientId, clientSecret: emulator.clientSecret })
    const result = await portal.actions.v3.call.make({ method: 'tasks.task.list' })
    await portal.destroy()
    await emulator.close()
    console.log(JSON.stringify({ ok: result.isSuccess, machine: accessTokenMachine.id, local: EnumAppStatus.Local }))
    `,
  )
  const { stdout } = await run(process.execPath, ['main.js'], { cwd: app })
  expect(JSON.parse(stdout)).toEqual({ ok: true, machine: 'accessToken', local: 'L' })
}, 180_000)
