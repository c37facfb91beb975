import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/commands.js'
import { runCli } from './cli-process.js'

describe('portal-oauth', () => {
  it('--help lists every command and the exit codes; without a command it exits 2', async () => {
    const help = await runCli(['--help'])
    expect(help.code).toBe(0)
    for (const command of COMMANDS) expect(help.stdout).toContain(`  ${command.name}`)
    expect(help.stdout).toContain('Exit codes: 0 done, 1 failed')
    const bare = await runCli([])
    expect(bare).toMatchObject({ code: 2, stdout: '' })
    expect(bare.stderr).toContain('Usage: portal-oauth <command>')
  }, 30_000)

  it('every command answers --help with its usage, exit 0', async () => {
    for (const command of COMMANDS) {
      const run = await runCli([command.name, '--help'])
      expect({ name: command.name, code: run.code, stderr: run.stderr }).toEqual({
        name: command.name,
        code: 0,
        stderr: '',
      })
      expect(run.stdout).toMatch(new RegExp(`^Usage: portal-oauth ${command.name}`))
      expect(run.stdout).toContain('Exit codes:')
      for (const flag of command.flags) expect(run.stdout).toContain(flag)
    }
  }, 60_000)

  it('--version prints the package version; an unknown command exits 2', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'))
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' })
    const unknown = await runCli(['deploy'])
    expect(unknown).toMatchObject({ code: 2, stdout: '' })
    expect(unknown.stderr).toContain("unknown command 'deploy'")
  }, 30_000)
})
