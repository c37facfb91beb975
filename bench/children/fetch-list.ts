/**
 * Child of the list figure: reads the whole contact list with `fetchList` and reports the rows, the pages and the
 * heap growth over the heap after GC before the first page. `live`: a full GC every 50 pages, the peak of the heap
 * after those GCs (what the loop holds). `used`: no forced GC, the peak of the used heap sampled after every page
 * (what it holds plus the garbage V8 has not collected yet). One call before the baseline loads what the first call
 * loads (undici, the pool), which is not the list's.
 */
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { requireGc } from '../lib/child.js'
import { lib } from '../lib/package.js'
import { UNPACED } from '../lib/rig.js'

interface Input {
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  method: string
  mode: 'live' | 'used'
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input
const collect = requireGc()
const portal = new lib.PortalOAuth(input.pair, input.secret, { restrictionParams: UNPACED })
await portal.actions.v2.call.make({ method: 'server.time' })
collect()
const before = process.memoryUsage().heapUsed
let peak = before
let rows = 0
let pages = 0
for await (const page of portal.actions.v2.fetchList.make<{ ID: string }>({
  method: input.method,
  unchecked: true,
})) {
  rows += page.length
  pages += 1
  if (input.mode === 'used') {
    peak = Math.max(peak, process.memoryUsage().heapUsed)
  } else if (pages % 50 === 0) {
    collect()
    peak = Math.max(peak, process.memoryUsage().heapUsed)
  }
}
collect()
const retained = process.memoryUsage().heapUsed - before
await portal.destroy()
console.log(
  JSON.stringify({ rows, pages, peakGrowth: Math.max(peak - before, retained), retainedGrowth: retained }),
)
