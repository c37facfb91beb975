/**
 * The pauses of this process (the emulator farm's, which answers every worker's calls) over a phase: its event loop's
 * longest delay and its garbage collections. A pause of the farm holds up every call in flight, whichever client made
 * it, so the report shows it beside the latency it lands in.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'

/** What {@link watchPauses} saw. */
export interface ProcessPauses {
  /** The event loop's longest delay, ms. */
  longestMs: number
  /** The longest garbage collection, ms, and the full (mark-compact) collections. */
  longestGcMs: number
  fullGcs: number
}

/** Starts watching this process's pauses; `stop()` ends it and says what it saw. */
export function watchPauses(): { stop: () => ProcessPauses } {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  let longestGcMs = 0
  let fullGcs = 0
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longestGcMs = Math.max(longestGcMs, entry.duration)
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        fullGcs += 1
    }
  })
  delay.enable()
  collections.observe({ entryTypes: ['gc'] })
  return {
    stop() {
      delay.disable()
      collections.disconnect()
      return { longestMs: delay.max / 1e6, longestGcMs, fullGcs }
    },
  }
}
