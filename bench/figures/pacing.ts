import { performance } from 'node:perf_hooks'
import { fixed } from '../../scripts/dev/stats.js'
import type { FigureResult } from '../lib/figure.js'
import type { BenchRig } from '../lib/rig.js'

const CALLS = 210
const BUCKET = { burstLimit: 10, drainRate: 20 }
const MAX_RATIO = 1.05

/**
 * 210 concurrent calls through a bucket of 10 draining 20 per second, with the emulator enforcing the same bucket:
 * elapsed time against the floor `(210 - 10) / 20` s, and the requests the portal rejected.
 */
export async function pacingFigure(rig: BenchRig): Promise<FigureResult> {
  const paced = await rig.client({ restrictionParams: { rateLimit: BUCKET } })
  // Switching the portal's bucket off empties it: both buckets start empty.
  await rig.emulator.setRateLimit(false)
  await rig.emulator.setRateLimit(BUCKET)
  await rig.emulator.clearLog()
  const started = performance.now()
  const settled = await Promise.allSettled(
    Array.from({ length: CALLS }, (_, index) =>
      index % 2 === 0
        ? paced.actions.v2.call.make({
            unchecked: true,
            method: 'crm.item.get',
            params: { entityTypeId: 2, id: 1 },
          })
        : paced.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } }),
    ),
  )
  const elapsed = (performance.now() - started) / 1000
  await paced.destroy()
  await rig.emulator.setRateLimit(false)
  const log = await rig.emulator.getLog()
  const rejected = log.filter((entry) => entry.kind === 'rest' && entry.status >= 400).length
  const requests = log.filter((entry) => entry.kind === 'rest').length
  const failed = settled.filter((item) => item.status === 'rejected' || !item.value.isSuccess).length
  const floor = (CALLS - BUCKET.burstLimit) / BUCKET.drainRate
  const ratio = elapsed / floor
  return {
    rows: [
      {
        figure: `pacing, ${CALLS} calls, bucket ${BUCKET.burstLimit} draining ${BUCKET.drainRate}/s`,
        measured: `${fixed(elapsed, 2)} s = ${fixed(ratio, 3)}x floor, ${rejected} rejected`,
        bar: `<= ${MAX_RATIO}x ${fixed(floor, 1)} s, 0 rejected`,
        pass: ratio <= MAX_RATIO && rejected === 0 && failed === 0,
        loadSensitive: true,
      },
    ],
    details: [
      `Pacing: ${requests} requests reached the portal in ${fixed(elapsed, 2)} s (floor ${fixed(floor, 1)} s), ${rejected} rejected, ${failed} failed calls.`,
    ],
  }
}
