import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { redisInstalled } from '../../scripts/dev/redis-server.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Runs `npm run load:fleet`'s script as it does (`node --expose-gc`) with `env` added, and collects what it printed. */
function runLoad(
  env: Record<string, string>,
  args: string[] = [],
  nodeFlags: string[] = ['--expose-gc'],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeFlags, '--import', 'tsx', 'scripts/load/load-fleet.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
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

/** The table's rows by figure: `[measured, bar, verdict]`. */
function tableRows(stdout: string): Map<string, [string, string, string]> {
  const rows = new Map<string, [string, string, string]>()
  for (const line of stdout.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim())
    if (cells.length !== 6 || cells[1] === 'figure' || cells[1] === '---') continue
    rows.set(cells[1]!, [cells[2]!, cells[3]!, cells[4]!])
  }
  return rows
}

const number = (text: string | undefined): number => Number((text ?? '').replaceAll(',', ''))

it.skipIf(!redisInstalled)(
  'LOAD_QUICK=1 with 20 portals x 2 processes for 4 s: a capacity search, then calls at half of it; every call succeeds, each expired portal is refreshed once, every figure is printed',
  async () => {
    const run = await runLoad({
      LOAD_QUICK: '1',
      LOAD_PORTALS: '20',
      LOAD_PROCESSES: '2',
      LOAD_DURATION_S: '4',
      LOAD_EXPIRING: '0.2',
    })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(/^fleet: \d+ of \d+ s, \d+ calls ok, 0 failed$/m)
    expect(run.stderr).toContain('installed 16 of 20 portals (the 4 expiring ones come after the warm-up)')
    // Steps of 1 s on the 16 steady portals, from 16 calls/s (a quarter of the ceiling, twice the buckets' drain), then
    // 8 calls/s (halving until the p99 no longer falls by a third).
    expect(run.stderr).toMatch(
      /^capacity step: asked 16\/s, made \d+\/s, \d+ turns skipped, 0 failed, p50 \/ p99 [\d.]+ \/ [\d.]+ ms$/m,
    )
    expect(run.stderr).toMatch(/^capacity step: asked 8\/s, /m)
    const rows = tableRows(run.stdout)
    const [capacity] = rows.get('capacity: calls per second carried before p99 turns up')!
    const found =
      /^(at least )?(\d+) \((\d+ not|the search's ceiling); p99 within [\d.]+ ms, 3x its [\d.]+ ms at \d+\/s or 50 ms; (\d+) steps of 1 s\)$/.exec(
        capacity,
      )
    expect(found, capacity).not.toBeNull()
    const carried = number(found![2])
    expect(carried).toBeGreaterThan(0)
    expect(carried).toBeLessThanOrEqual(64)
    // Measured at half the capacity (2 000 ms per call per portal, 20 calls/s, at most): the interval says so.
    const asked = Math.min(20, carried / 2)
    const intervalMs = Math.round((20 * 2 * 1000) / asked)
    const header =
      /^fleet load: 20 portals x 2 processes, a call per portal every (\d+) ms for (\d+) s, 4 portals expiring;/m.exec(
        run.stdout,
      )
    expect(number(header?.[1])).toBe(intervalMs)
    // 4 s, or longer when every expiring portal needs it: the lead (half of 4 s) and one interval.
    expect(number(header?.[2])).toBe(Math.max(4, 2 + Math.ceil(intervalMs / 1000)))
    expect(rows.get('calls per second')![0]).toMatch(
      new RegExp(`^\\d+ \\(asked ${Math.round((20 * 2 * 1000) / intervalMs)}: `),
    )
    expect([...rows.keys()]).toEqual([
      'calls ok / failed',
      'failed calls by error code',
      'capacity: calls per second carried before p99 turns up',
      'calls per second',
      'refresh requests per expired portal',
      'requests the portals rejected',
      'client CPU per call, 20 portals x 2 processes on RedisStore',
      'client CPU per call, 1 portal on MemoryStore per process, 2 processes, same calls per second',
      'CPU per call on a valid token, fleet / single portal on MemoryStore',
      'worker RSS per held portal',
      'worker heap per held portal',
      'worker RSS per process, the largest',
      'worker CPU while idle, holding its portals',
      'call latency p50 / p99',
      'of which: p99 of the portals not expiring; p50 / p99 of the expiring ones',
      "the emulator farm's longest pause during the calls (every call in flight waits it out)",
      'Redis commands sent per call on a valid token (the portals not expiring)',
      'Redis commands sent per expiring portal, every process (its load, refresh and waits)',
      'Redis commands run per call, scripts inner commands included',
      'Redis CPU per call',
      'Redis bytes per portal',
      'other work on the machine during the calls',
    ])
    // The latency split: both kinds of portal were called, so neither part is empty.
    const [split] = rows.get('of which: p99 of the portals not expiring; p50 / p99 of the expiring ones')!
    expect(split).toMatch(/^[\d.]+ ms; [\d.]+ \/ [\d.]+ ms$/)
    // The farm's pauses: the longest delay of its event loop, and its collections.
    const [pauses] = rows.get(
      "the emulator farm's longest pause during the calls (every call in flight waits it out)",
    )!
    const farm = /^([\d.]+) ms; its longest garbage collection ([\d.]+) ms, (\d+) full$/.exec(pauses)
    expect(farm, pauses).not.toBeNull()
    expect(number(farm![1])).toBeGreaterThan(0)
    const [ok, failed] = rows.get('calls ok / failed')![0].split(' / ').map(number)
    expect(ok).toBeGreaterThan(0)
    expect(failed).toBe(0)
    expect(rows.get('failed calls by error code')![0]).toBe('none')
    expect(rows.get('refresh requests per expired portal')).toEqual([
      '1.00 (4 for 4 portals; 0 for the others)',
      'exactly 1, 0 for the others',
      'ok',
    ])
    expect(rows.get('worker RSS per held portal')![0]).toMatch(/\(20 portals held per process\)$/)
    // The ratio's side: the calls before the expiring pairs fell due, half of the 4 s asked; then the whole run's.
    const [fleetCpu] = rows.get('client CPU per call, 20 portals x 2 processes on RedisStore')!
    const cpuSplit =
      /^(\d+\.\d{3}) ms on valid tokens \(the first 2 s, before any pair fell due\); (\d+\.\d{3}) ms over the run$/.exec(
        fleetCpu,
      )
    expect(cpuSplit, fleetCpu).not.toBeNull()
    expect(number(cpuSplit![1])).toBeGreaterThan(0)
    // The baseline over as long: the first 2 s of its own calls.
    expect(
      rows.get(
        'client CPU per call, 1 portal on MemoryStore per process, 2 processes, same calls per second',
      )![0],
    ).toMatch(/^\d+\.\d{3} ms \([\d,]+ calls, 2 s\)$/)
    const [ratio, bar, verdict] = rows.get(
      'CPU per call on a valid token, fleet / single portal on MemoryStore',
    )!
    expect(bar).toBe('<= 1.2x')
    // Without --strict a missed bar says it does not fail the run (which exited 0 above).
    const informational = 'MISSED (informational: exits 0 without --strict)'
    expect(verdict).toBe(number(ratio.replace('x', '')) <= 1.2 ? 'MET' : informational)
    const [sent, redisBar, redisVerdict] = rows.get(
      'Redis commands sent per call on a valid token (the portals not expiring)',
    )!
    // A call on a valid token sends its slot, one script; each connection's setup is counted apart.
    expect(sent).toMatch(/^1\.00 \(and \d+ naming no portal, the connections' setup\)$/)
    expect(redisBar).toBe('<= 1.0')
    expect(redisVerdict).toBe(number(sent.split(' ')[0]!) <= 1 ? 'MET' : informational)
    const [perExpiring] = rows.get(
      'Redis commands sent per expiring portal, every process (its load, refresh and waits)',
    )!
    // Each of the 2 processes loads the pair; one of them locks, saves and releases it.
    expect(perExpiring).toMatch(/^\d+\.\d; \d+\.\d\d per call in all$/)
    expect(number(perExpiring.split(';')[0]!)).toBeGreaterThanOrEqual(5)
    expect(rows.get('worker CPU while idle, holding its portals')![0]).toMatch(
      /^\d+\.\d ms\/s \(\d+\.\d ms\/s holding 1 portal\)$/,
    )
    const [latency, latencyBar, latencyVerdict] = rows.get('call latency p50 / p99')!
    expect(latency).toMatch(/^\d+\.\d \/ \d+\.\d ms$/)
    expect(latencyBar).toBe('p99 <= 50 ms')
    expect(latencyVerdict).toBe(
      number(latency.split(' / ')[1]!.replace(' ms', '')) <= 50 ? 'MET' : informational,
    )
    const [heap, heapBar] = rows.get('worker heap per held portal')!
    expect(heap).toMatch(/^-?\d+\.\d (KB|MB)$/)
    expect(heapBar).toBe('<= 8.0 KB')
    const [rss, rssBar] = rows.get('worker RSS per process, the largest')!
    expect(rss).toMatch(
      /^\d+\.\d MB \(V8 heap \d+\.\d MB, \d+\.\d MB in use; 1 portal on MemoryStore per process: \d+\.\d MB\)$/,
    )
    expect(rssBar).toBe('<= 300.0 MB')
    expect(rows.get('Redis bytes per portal')![0]).toMatch(/^[\d,]+ B \(MEMORY USAGE, 20 portals\)/)
    expect(number(rows.get('Redis bytes per portal')![0].split(' ')[0])).toBeGreaterThan(0)
  },
  120_000,
)

it('a bad option exits 2 with a message naming it, before starting anything', async () => {
  const run = await runLoad({}, ['--expiring', '1.5'])
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(run.stderr).toContain("load:fleet: --expiring must be a number from 0 to 1, got '1.5'")
  const env = await runLoad({ LOAD_PROCESSES: 'four' })
  expect(env.code).toBe(2)
  expect(env.stderr).toContain("load:fleet: LOAD_PROCESSES must be an integer from 1 to 64, got 'four'")
  // Too short for every expiring portal to be called once its pair fell due: refused, nothing started.
  const short = await runLoad({}, ['--interval', '20000', '--duration', '20'])
  expect(short.code).toBe(2)
  expect(short.stdout).toBe('')
  expect(short.stderr).toContain('load:fleet: --duration 20 is too short for --interval 20000')
  expect(short.stderr).toContain('in a run of 30 s or more (or give --expiring 0)')
  // Without gc() the farm's heap could not be collected between the steps: refused the same way.
  const noGc = await runLoad({}, [], [])
  expect(noGc.code).toBe(2)
  expect(noGc.stdout).toBe('')
  expect(noGc.stderr).toContain('load:fleet: run with node --expose-gc (npm run load:fleet does)')
})
