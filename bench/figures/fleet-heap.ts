import { bytes } from '../../scripts/dev/stats.js'
import { runChild } from '../lib/child.js'
import type { FigureResult } from '../lib/figure.js'
import type { BenchRig } from '../lib/rig.js'

const PORTALS = 10_000
const MAX_BYTES = 8 * 1024

/** Heap per idle portal held by one `PortalFleet` (an application installed on many portals): 10 000, after GC. */
export async function fleetHeapFigure(rig: BenchRig): Promise<FigureResult> {
  const { bytesPerPortal } = await runChild<{ bytesPerPortal: number }>('fleet-heap', {
    pair: await rig.pair(),
    secret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
    count: PORTALS,
  })
  return {
    rows: [
      {
        figure: `heap per idle portal held by one PortalFleet (${PORTALS} portals, after GC)`,
        measured: bytes(bytesPerPortal),
        bar: `<= ${bytes(MAX_BYTES)}`,
        pass: bytesPerPortal <= MAX_BYTES,
      },
    ],
    details: [],
  }
}
