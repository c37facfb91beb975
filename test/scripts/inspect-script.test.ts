import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { freePort } from '../machines/inspector-support.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Runs `npm run inspect`'s script as a child process (its own emulator inside) and collects what it printed. */
function runInspect(port: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/demos/inspect.ts',
        '--port',
        String(port),
        '--step',
        '0',
        '--wait',
        '0',
        '--linger',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

it('npm run inspect runs every step of its scenario, each ending in the state its title says, and exits 0', async () => {
  const run = await runInspect(await freePort())
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  const steps = run.stdout.split('\n- ').slice(1)
  const stateOf = (step: string): string | undefined => /token: (\w+), admin flag: (\w+)/.exec(step)?.[1]
  expect(steps.map((step) => [step.split('\n')[0], stateOf(step)])).toEqual([
    ['a call while the token is valid', 'valid'],
    ['an hour passes: the access token expires', 'expired'],
    ['a burst of 10 calls: one refresh, every call waits for it', 'valid'],
    ['the portal rejects the token (expired_token): the call refreshes and is sent again', 'valid'],
    ['the OAuth server is down (503 on every attempt): refreshAuth() fails, the token stays in use', 'valid'],
    [
      'the OAuth server refuses the refresh token (invalid_grant): the pair is dead, calls fail at once',
      'dead',
    ],
    ['the application is installed again: setAuthOptions() takes the new pair', 'valid'],
    ['initIsAdmin(): one profile call, then auth.isAdmin is readable', 'valid'],
  ])
  expect(run.stdout).toContain('10/10 calls succeeded, 1 refresh request(s) sent')
  expect(run.stdout).toContain('refreshAuth() threw AjaxError after 4 attempts')
  expect(run.stdout).toContain('a call failed with the same error, 0 request(s) sent')
  expect(run.stdout).toMatch(/auth\.isAdmin = true\n {2}token: valid, admin flag: initialised/)
})
