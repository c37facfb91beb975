import { bytes } from '../../scripts/dev/stats.js'
import { runChild } from '../lib/child.js'
import type { FigureResult } from '../lib/figure.js'
import type { BenchRig } from '../lib/rig.js'

const INSTANCES = 5_000
const MAX_BYTES = 8 * 1024

/** Heap per idle `PortalOAuth` (a server holding one instance per installed portal): 5 000 instances, after GC. */
export async function idleHeapFigure(rig: BenchRig): Promise<FigureResult> {
  const { bytesPerInstance } = await runChild<{ bytesPerInstance: number }>('idle-heap', {
    pair: await rig.pair(),
    secret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
    count: INSTANCES,
  })
  return {
    rows: [
      {
        figure: `heap per idle PortalOAuth (${INSTANCES} instances, after GC)`,
        measured: bytes(bytesPerInstance),
        bar: `<= ${bytes(MAX_BYTES)}`,
        pass: bytesPerInstance <= MAX_BYTES,
      },
    ],
    details: [],
  }
}
