/**
 * Call latencies as counts in buckets 2 % wide (10 us to about 2 minutes): a long run of many calls crosses the
 * IPC as a few hundred numbers, the histograms of every process add up, and a percentile is off by 2 % at most.
 */
const FIRST_MS = 0.01
const GROWTH = 1.02
const BUCKETS = Math.ceil(Math.log(120_000 / FIRST_MS) / Math.log(GROWTH)) + 1

/** Counts per bucket; bucket `i` holds latencies up to `FIRST_MS * GROWTH ** i` ms. */
export type LatencyCounts = number[]

/** An empty histogram. */
export function emptyLatencies(): LatencyCounts {
  return new Array<number>(BUCKETS).fill(0)
}

/** Counts one latency, ms. */
export function recordLatency(counts: LatencyCounts, ms: number): void {
  const index =
    ms <= FIRST_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / FIRST_MS) / Math.log(GROWTH)))
  counts[index] = (counts[index] ?? 0) + 1
}

/** The sum of several histograms. */
export function mergeLatencies(all: readonly LatencyCounts[]): LatencyCounts {
  const merged = emptyLatencies()
  for (const counts of all) {
    for (let index = 0; index < merged.length; index += 1)
      merged[index] = merged[index]! + (counts[index] ?? 0)
  }
  return merged
}

/** The latency (upper edge of its bucket, ms) below which `share` (0 to 1) of the calls fell; `NaN` without calls. */
export function latencyPercentile(counts: LatencyCounts, share: number): number {
  const total = counts.reduce((sum, count) => sum + count, 0)
  if (total === 0) return Number.NaN
  const rank = Math.max(1, Math.ceil(share * total))
  let seen = 0
  for (let index = 0; index < counts.length; index += 1) {
    seen += counts[index] ?? 0
    if (seen >= rank) return FIRST_MS * GROWTH ** index
  }
  return FIRST_MS * GROWTH ** (counts.length - 1)
}
