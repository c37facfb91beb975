import { describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { runCli, usePairFixture } from './cli-process.js'

const fixture = usePairFixture('call-all', ['--list-rows', '130'])
const { env } = fixture

describe('portal-oauth call --all', () => {
  it('walks a v3 *.tail method by its cursor to the end', async () => {
    const run = await runCli(
      ['call', 'main.eventlog.tail', '--api', 'v3', '--all', '--pair', fixture.pairFile],
      env(),
    )
    expect(run.stderr).toBe('main.eventlog.tail: 130 rows\n')
    expect(run.code).toBe(0)
    const rows = JSON.parse(run.stdout) as Array<{ id: number }>
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: 130 }, (_, index) => index + 1))
    const pages = (
      (await fixture.emulator.control('GET', '/log?kind=rest')).body as RequestLogEntry[]
    ).filter((entry) => entry.restMethod === 'main.eventlog.tail')
    expect(pages.map((entry) => entry.status)).toEqual([200, 200, 200])
  }, 30_000)

  it('prints the rows read before a page that fails, then the failure (exit 1)', async () => {
    // A list that answers the same 50 rows whatever the id filter: its second page cannot move on.
    const rows = Array.from({ length: 50 }, (_, index) => ({ ID: String(index + 1) }))
    await fixture.emulator.control('PUT', '/methods/app.rows.list', { result: rows })
    const run = await runCli(['call', 'app.rows.list', '--all', '--pair', fixture.pairFile], env())
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stdout)).toEqual(rows)
    expect(run.stderr).toBe(
      'portal-oauth call: app.rows.list: page 2 did not move past id 50; the method ignores the id filter or cursor (check --id-key)\n',
    )
  }, 30_000)
})
