/**
 * What nobody answers: a portal whose port refuses connections, a Redis server that is down, a `--store` port that
 * is no Redis. Each ends the command with one line on stderr that names the address, and nothing else.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { freePort } from '../redis/redis-server.js'
import { runCli, usePairFixture } from './cli-process.js'

const fixture = usePairFixture('unreachable')
const { env } = fixture

/** `runCli` and how long the command ran, ms. */
async function timed(args: string[], environment: NodeJS.ProcessEnv) {
  const started = performance.now()
  const run = await runCli(args, environment)
  return { ...run, ms: performance.now() - started }
}

describe('an address nobody answers', () => {
  it('a portal that refuses the connection fails the call at once, naming its address', async () => {
    const port = await freePort()
    const origin = `http://127.0.0.1:${port}`
    const refusing = join(fixture.dir, 'refused.json')
    await writeFile(
      refusing,
      JSON.stringify({
        ...fixture.emulator.info.pair,
        clientEndpoint: `${origin}/rest/`,
        domain: `127.0.0.1:${port}`,
      }),
    )
    const reachable = join(fixture.dir, 'reachable.json')
    await writeFile(reachable, JSON.stringify(fixture.emulator.info.pair))
    // The same command on a portal that answers, run just before: what starting the command costs on this machine.
    const baseline = await timed(['call', 'profile', '--pair', reachable], env())
    expect(baseline.code).toBe(0)
    const refused = await timed(['call', 'profile', '--pair', refusing], env())
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `portal-oauth call: cannot connect to ${origin} (ECONNREFUSED)\n`,
    })
    // The library's retries of a refused connection wait 1 s, 2 s and 4 s: the command waited for none of them.
    expect(refused.ms - baseline.ms).toBeLessThan(3_000)
  }, 60_000)

  it('Redis down: one line, no client stack', async () => {
    const port = await freePort()
    for (const args of [
      ['call', 'profile', '--store', `redis://127.0.0.1:${port}`, '--member', 'm'],
      ['fleet', 'status', '--store', `redis://127.0.0.1:${port}`],
    ]) {
      const run = await runCli(args, env())
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `portal-oauth ${args[0]}: --store redis://127.0.0.1:${port}: cannot connect (connect ECONNREFUSED 127.0.0.1:${port})\n`,
      })
    }
  }, 60_000)

  it('--store on a port that is no Redis server (the emulator): one line, no client stack', async () => {
    const port = new URL(fixture.emulator.info.controlEndpoint).port
    const run = await runCli(
      ['call', 'profile', '--store', `redis://127.0.0.1:${port}`, '--member', 'm'],
      env(),
    )
    // An HTTP server answers Redis's first bytes with a 400, or resets the socket before the client reads it: the
    // client sees one or the other, and either is one line.
    expect(run).toMatchObject({ code: 1, stdout: '' })
    expect(run.stderr).toMatch(
      new RegExp(
        `^portal-oauth call: --store redis://127\\.0\\.0\\.1:${port}: cannot connect \\((it does not answer as a Redis server does|read ECONNRESET)\\)\\n$`,
      ),
    )
  }, 30_000)
})
