import { runChild } from '../lib/child.js'
import type { FigureResult } from '../lib/figure.js'
import type { BenchRig } from '../lib/rig.js'

const WARM_UP = 5_000
const REFRESHES = 10_000
/** The default lockTtl (15 s with the default 10 s refresh timeout) and a second. */
const PAST_TTL_MS = 16_000
const MAX_BYTES = 100

interface Measured {
  rightAfter: number
  pastTtl: number
  pastTtlCode: number
}

const shown = (bytes: number): string => `${Math.round(bytes)} B`

/**
 * Heap retained per refresh: 10 000 sequential refreshes over HTTP with the default options, after GC, right after
 * and once every request's bound (the lock's TTL) has passed. A long-running process refreshes for as long as it
 * lives: nothing of a refresh may stay.
 */
export async function refreshHeapFigure(rig: BenchRig): Promise<FigureResult> {
  const measured = await runChild<Measured>('refresh-heap', {
    pair: await rig.pair(),
    secret: { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
    warmUp: WARM_UP,
    refreshes: REFRESHES,
    pastTtlMs: PAST_TTL_MS,
  })
  const { rightAfter, pastTtl, pastTtlCode } = measured
  return {
    rows: [
      {
        figure: `heap retained per refresh (${REFRESHES} sequential, after GC)`,
        measured: `${shown(rightAfter)} right after, ${shown(pastTtl)} past the lock TTL`,
        bar: `<= ${MAX_BYTES} B`,
        pass: rightAfter <= MAX_BYTES && pastTtl <= MAX_BYTES,
      },
    ],
    details: [
      `Refresh heap: ${REFRESHES} refreshes one after another after ${WARM_UP} not counted, default options; past the lock TTL, ${shown(pastTtlCode)} per refresh of it is code V8 compiled meanwhile (code and trusted spaces), ${shown(pastTtl - pastTtlCode)} the rest.`,
    ],
  }
}
