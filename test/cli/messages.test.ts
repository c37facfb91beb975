/**
 * The command line's messages and exit codes as a shell user meets them: each names the flag or the variable to act
 * on (never an option of the library or a class name), wrong command lines exit 2, a misspelt method gets the
 * catalogue's closest name and the portal's code.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { type CliEmulator, runCli, startCliEmulator } from './cli-process.js'

let dir = ''
let emulator: CliEmulator
let pairFile = ''

// cli-process.ts stops every emulator it started after each test.
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portal-oauth-messages-'))
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

/** Words of the library a shell user cannot type. */
const LIBRARY_WORDS = /SdkError|AjaxError|ListPageError|customKeyForResult|options\.|authOptions|fetchList/

describe('portal-oauth messages', () => {
  it('wrong values exit 2 naming the flag: a line break in --request-id, braces in --prefix, negative numbers', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['call', 'profile', '--pair', pairFile, '--request-id', 'a\nb'],
        'portal-oauth call: --request-id must not contain CR, LF, NUL or other control characters, nor characters above U+00FF (found U+000A at position 1)',
      ],
      [
        ['call', 'profile', '--store', 'redis://127.0.0.1:1', '--member', 'm', '--prefix', '{bad}'],
        "portal-oauth call: --prefix must not contain { or }, got '{bad}'",
      ],
      [
        ['emulator', '--list-rows', '-5'],
        "portal-oauth emulator: --list-rows must be a non-negative integer, got '-5'",
      ],
      [
        ['fleet', 'status', '--store', 'redis://127.0.0.1:1', '--expiring-within', '-5'],
        "portal-oauth fleet: --expiring-within must be a number of seconds, got '-5'",
      ],
    ]
    for (const [args, message] of cases) {
      const run = await runCli(args, env())
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' })
      expect(run.stderr.startsWith(message)).toBe(true)
      expect(run.stderr).not.toMatch(/ambiguous|SdkError/)
    }
    expect(((await emulator.control('GET', '/log')).body as RequestLogEntry[]).length).toBe(0)
  }, 60_000)

  it("a misspelt method: the portal's message and code, and the catalogue's closest name", async () => {
    const run = await runCli(['call', 'crm.dael.list', '--pair', pairFile], env())
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'portal-oauth call: crm.dael.list: Method not found! (ERROR_METHOD_NOT_FOUND); did you mean crm.deal.list?\n',
    })
  }, 30_000)

  it('--result-key, not the option it sets, in the message of a list whose rows are elsewhere', async () => {
    const run = await runCli(
      ['call', 'crm.item.list', '{"entityTypeId": 2}', '--all', '--result-key', 'itemz', '--pair', pairFile],
      env(),
    )
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'portal-oauth call: crm.item.list: page 1 has no list at result.itemz; check --result-key\n',
    })
  }, 30_000)

  it('an untrusted OAuth server: the variable to set, with the value', async () => {
    const { PORTAL_OAUTH_TRUSTED_SERVERS: _trust, ...untrusted } = env()
    const run = await runCli(['call', 'profile', '--pair', pairFile], untrusted)
    const origin = emulator.info.oauthServer
    expect(run).toMatchObject({ code: 1, stdout: '' })
    expect(run.stderr).toBe(
      `portal-oauth call: the pair's OAuth server ${origin} is not trusted: if it is yours, set PORTAL_OAUTH_TRUSTED_SERVERS=${origin} ` +
        "(the client secret and refresh tokens go only to the vendor's OAuth servers and those it names)\n",
    )
    expect(run.stderr).not.toMatch(LIBRARY_WORDS)
  }, 30_000)

  it("emulator --help tells the default scope the emulator's pairs have", async () => {
    const help = await runCli(['emulator', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain(`scope of the pairs it issues (default: ${emulator.info.pair.scope})`)
  }, 30_000)
})
