import { bytes } from '../../scripts/dev/stats.js'
import { runChild } from '../lib/child.js'
import type { FigureResult } from '../lib/figure.js'
import { type BenchRig, LIST_ROWS } from '../lib/rig.js'

const METHOD = 'crm.contact.list'
const MAX_REQUESTS = 2_001
const MAX_GROWTH = 20 * 1024 * 1024

interface ListOutcome {
  rows: number
  pages: number
  peakGrowth: number
  retainedGrowth: number
}

/**
 * `fetchList` over a list of 100 000 rows, read twice: once with a full GC every 50 pages (the heap the loop holds,
 * and the requests the portal saw), once with GC left to V8 (the used heap, garbage included).
 */
export async function fetchListFigure(rig: BenchRig): Promise<FigureResult> {
  const secret = { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret }
  await rig.emulator.clearLog()
  const live = await runChild<ListOutcome>('fetch-list', {
    pair: await rig.pair(),
    secret,
    method: METHOD,
    mode: 'live',
  })
  const log = await rig.emulator.getLog()
  // The child's warm-up call is not part of the list.
  const requests = log.filter((entry) => entry.kind === 'rest' && entry.restMethod === METHOD).length
  const used = await runChild<ListOutcome>('fetch-list', {
    pair: await rig.pair(),
    secret,
    method: METHOD,
    mode: 'used',
  })
  return {
    rows: [
      {
        figure: `fetchList of ${LIST_ROWS} rows (v2 ${METHOD})`,
        measured: `${requests} requests, peak heap +${bytes(live.peakGrowth)} (used heap +${bytes(used.peakGrowth)})`,
        bar: `<= ${MAX_REQUESTS} requests, < ${bytes(MAX_GROWTH)}`,
        pass: live.rows === LIST_ROWS && requests <= MAX_REQUESTS && live.peakGrowth < MAX_GROWTH,
      },
    ],
    details: [
      `fetchList: ${live.rows} rows in ${live.pages} pages, ${requests} requests. Heap growth over the heap before the first page: peak ${bytes(live.peakGrowth)} with a full GC every 50 pages (what the loop holds), ${bytes(live.retainedGrowth)} after the last page; the used heap, with GC left to V8, peaked ${bytes(used.peakGrowth)} higher (garbage not yet collected: a young generation of up to 16 MB, and per-request \`Request\`/\`AbortSignal\` objects that survive minor GCs until the next full one).`,
    ],
  }
}
