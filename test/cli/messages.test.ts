import { describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { runCli, usePairFixture } from './cli-process.js'

const fixture = usePairFixture('messages')
const { env } = fixture

/** Words of the library a shell user cannot type. */
const LIBRARY_WORDS = /SdkError|AjaxError|ListPageError|customKeyForResult|options\.|authOptions|fetchList/

describe('portal-oauth messages', () => {
  it('wrong values exit 2 naming the flag: a line break in --request-id, braces in --prefix, negative numbers', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['call', 'profile', '--pair', fixture.pairFile, '--request-id', 'a\nb'],
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
    expect(((await fixture.emulator.control('GET', '/log')).body as RequestLogEntry[]).length).toBe(0)
  }, 60_000)

  it("a misspelt method: the portal's message and code, and the catalogue's closest name", async () => {
    const run = await runCli(['call', 'crm.dael.list', '--pair', fixture.pairFile], env())
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'portal-oauth call: crm.dael.list: Method not found! (ERROR_METHOD_NOT_FOUND); did you mean crm.deal.list?\n',
    })
  }, 30_000)

  it('--result-key, not the option it sets, in the message of a list whose rows are elsewhere', async () => {
    const run = await runCli(
      [
        'call',
        'crm.item.list',
        '{"entityTypeId": 2}',
        '--all',
        '--result-key',
        'itemz',
        '--pair',
        fixture.pairFile,
      ],
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
    const run = await runCli(['call', 'profile', '--pair', fixture.pairFile], untrusted)
    const origin = fixture.emulator.info.oauthServer
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
    expect(help.stdout).toContain(
      `scope of the pairs it issues (default: ${fixture.emulator.info.pair.scope})`,
    )
  }, 30_000)
})
