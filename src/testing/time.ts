import { performance } from 'node:perf_hooks'
import type { OperatingState } from './limits.js'

/** The `time` block of a REST answer (contract 4.2). */
export interface RestTimeBlock {
  start: number
  finish: number
  duration: number
  processing: number
  date_start: string
  date_finish: string
  operating_reset_at?: number
  operating?: number
}

/** PHP `date('c')` of a ms timestamp, in UTC: `2026-05-14T10:26:32+00:00`. */
export function phpDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`
}

/** Start time on the emulator clock plus a real elapsed-time measure (the emulator clock may be frozen). */
export class Stopwatch {
  /** Start on the emulator clock, ms. */
  readonly startMs: number
  readonly #perf = performance.now()

  constructor(now: () => number) {
    this.startMs = now()
  }

  /** Real ms since the start. */
  elapsedMs(): number {
    return performance.now() - this.#perf
  }
}

/** Build a `time` block; `operating` adds `operating` and `operating_reset_at` (omitted in batch `result_time`). */
export function timeBlock(watch: Stopwatch, processingMs: number, operating?: OperatingState): RestTimeBlock {
  const finishMs = watch.startMs + watch.elapsedMs()
  const block: RestTimeBlock = {
    start: watch.startMs / 1000,
    finish: finishMs / 1000,
    duration: (finishMs - watch.startMs) / 1000,
    processing: processingMs / 1000,
    date_start: phpDate(watch.startMs),
    date_finish: phpDate(finishMs),
  }
  if (operating) {
    if (operating.resetAt !== undefined) block.operating_reset_at = operating.resetAt
    block.operating = operating.usedMs / 1000
  }
  return block
}
