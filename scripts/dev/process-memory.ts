/**
 * What a Node process that makes calls keeps resident, whatever its portals: one client of the built package calls
 * an emulator in its own process (`CALLS` calls, `LANES` at once, after as many warm-up calls), then idles; prints
 * RSS, V8's heap (committed and used, after a full GC) and the resident 256 KB pages V8 allocates its heap in
 * (`/proc/self/smaps`), after the calls and after 5, 15 and 25 s of idling. Run it with the Node flags to compare:
 *
 *   npm run build && node --expose-gc scripts/dev/process-memory.ts
 *   npm run build && node --expose-gc --max-semi-space-size=16 scripts/dev/process-memory.ts
 */
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

const { PortalOAuth, createNullLogger } = (await import(
  new URL('../../dist/src/index.js', import.meta.url).href
)) as typeof import('../../src/index.js')
const { startPortalEmulatorProcess } = (await import(
  new URL('../../dist/src/testing/index.js', import.meta.url).href
)) as typeof import('../../src/testing/index.js')

const CALLS = Number(process.env.CALLS ?? 15_000)
const LANES = Number(process.env.LANES ?? 8)
const collect = (globalThis as { gc?: () => void }).gc
if (!collect) throw new Error('process-memory: run node with --expose-gc')

const MB = 2 ** 20
/** V8 allocates its heap in pages of 256 KB; smaps lists each such mapping apart. */
const V8_PAGE_KB = 256

/** RSS of the anonymous 256 KB mappings: V8's heap pages, committed or kept after the heap shrank. */
function v8PagesResidentMb(): number {
  let pageMapping = false
  let kb = 0
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) {
      const sizeKb = (Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16)) / 1024
      pageMapping = head[3] === '' && sizeKb === V8_PAGE_KB
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss && pageMapping) kb += Number(rss[1])
  }
  return kb / 1024
}

function report(label: string): void {
  collect!()
  const { rss, heapTotal, heapUsed } = process.memoryUsage()
  const pages = process.platform === 'linux' ? `, V8 pages resident ${v8PagesResidentMb().toFixed(0)} MB` : ''
  console.log(
    `${label}: RSS ${(rss / MB).toFixed(0)} MB, V8 heap ${(heapTotal / MB).toFixed(0)} MB (${(heapUsed / MB).toFixed(0)} MB in use)${pages}`,
  )
}

const emulator = await startPortalEmulatorProcess({ rateLimit: false })
const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
const client = new PortalOAuth(await emulator.issueAuthParams(), secret, {
  restrictionParams: { rateLimit: { burstLimit: 1_000_000, drainRate: 1_000_000 } },
  oauthServers: [emulator.oauthServer],
  logger: createNullLogger(),
})

async function calls(count: number): Promise<void> {
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < count) {
      next += 1
      const result = await client.actions.v2.call.make({
        method: 'crm.item.get',
        params: { entityTypeId: 2, id: 1 },
      })
      if (!result.isSuccess) throw new Error(result.getErrorMessages().join('; '))
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
}

console.log(`Node ${process.version}, flags: ${process.execArgv.join(' ')}; ${CALLS} calls, ${LANES} at once`)
await calls(CALLS)
report('after the warm-up calls')
const cpu = process.cpuUsage()
await calls(CALLS)
const used = process.cpuUsage(cpu)
console.log(`CPU per call: ${((used.user + used.system) / CALLS).toFixed(0)} us`)
report('after the calls')
let idled = 0
for (const seconds of [5, 15, 25]) {
  await sleep((seconds - idled) * 1000)
  idled = seconds
  report(`idle ${seconds} s`)
}
client.destroy()
await emulator.close()
