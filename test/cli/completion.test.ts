import { execFile, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { V2_METHODS, V3_METHODS } from '../../src/catalogue/methods.generated.js'
import { COMMANDS } from '../../src/cli/commands.js'
import { runCli } from './cli-process.js'

const exec = promisify(execFile)

/** What bash completes for the words typed so far (the last one being completed). */
async function complete(script: string, words: string[]): Promise<string[]> {
  const line = words.map((word) => `'${word}'`).join(' ')
  const { stdout } = await exec(
    'bash',
    [
      '-c',
      `eval "$SCRIPT"; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _portal_oauth; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { env: { ...process.env, SCRIPT: script }, maxBuffer: 1 << 24 },
  )
  return stdout.split('\n').filter((word) => word !== '')
}

describe('portal-oauth completion', () => {
  it('bash completes commands, flags and the catalogue method names after call', async () => {
    const run = await runCli(['completion', 'bash'])
    expect(run.code).toBe(0)
    const script = run.stdout
    expect(await complete(script, ['portal-oauth', 'ca'])).toEqual(['call'])
    expect(await complete(script, ['portal-oauth', 'call', 'crm.deal.li'])).toEqual(['crm.deal.list'])
    expect(await complete(script, ['portal-oauth', 'call', 'main.eventlog.t'])).toEqual([
      'main.eventlog.tail',
    ])
    const methods = await complete(script, ['portal-oauth', 'call', ''])
    expect(new Set(methods)).toEqual(new Set([...Object.keys(V2_METHODS), ...Object.keys(V3_METHODS)]))
    expect(await complete(script, ['portal-oauth', 'call', 'profile', '--al'])).toEqual(['--all'])
    expect(await complete(script, ['portal-oauth', 'call', 'profile', '--api', ''])).toEqual(['v2', 'v3'])
    expect(await complete(script, ['portal-oauth', 'emulator', '--oauth'])).toEqual(['--oauth-port'])
  }, 30_000)

  it.skipIf(spawnSync('zsh', ['--version']).status !== 0)(
    'zsh completes the same: commands, flags, files after --pair, the catalogue methods after call',
    async () => {
      const { stdout: script } = await runCli(['completion', 'zsh'])
      // The completion system's builtins, stubbed to print what the function offers (zsh filters by the word itself).
      const stubs = `compadd() { [[ $1 == -- ]] && shift; print -l -- "$@" }
        _describe() { local -a offered; offered=("\${(@P)2}"); print -l -- \${offered%%:*} }
        _files() { print FILES }`
      const offered = async (words: string[]): Promise<string[]> => {
        const line = words.map((word) => `'${word}'`).join(' ')
        const { stdout } = await exec(
          'zsh',
          ['-c', `eval "$SCRIPT"; ${stubs}; words=(${line}); CURRENT=${words.length}; _portal_oauth`],
          { env: { ...process.env, SCRIPT: script }, maxBuffer: 1 << 24 },
        )
        return stdout.split('\n').filter((word) => word !== '')
      }
      expect(await offered(['portal-oauth', ''])).toEqual(COMMANDS.map((command) => command.name))
      expect(new Set(await offered(['portal-oauth', 'call', 'crm.deal.li']))).toEqual(
        new Set([...Object.keys(V2_METHODS), ...Object.keys(V3_METHODS)]),
      )
      expect(await offered(['portal-oauth', 'fleet', '--'])).toEqual(
        COMMANDS.find((command) => command.name === 'fleet')?.flags,
      )
      expect(await offered(['portal-oauth', 'call', 'profile', '--pair', ''])).toEqual(['FILES'])
      await exec('zsh', ['-n', '-c', script])
    },
    30_000,
  )

  it('zsh gets a compdef script with the same methods; another shell exits 2', async () => {
    const zsh = await runCli(['completion', 'zsh'])
    expect(zsh.code).toBe(0)
    expect(zsh.stdout).toMatch(/^#compdef portal-oauth\n/)
    expect(zsh.stdout).toContain('compdef _portal_oauth portal-oauth')
    expect(zsh.stdout).toContain(' crm.deal.list ')
    const fish = await runCli(['completion', 'fish'])
    expect(fish).toMatchObject({ code: 2, stdout: '' })
    expect(fish.stderr).toContain("name the shell, bash or zsh, got 'fish'")
  }, 30_000)
})
