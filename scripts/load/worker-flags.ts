/**
 * How the load test's worker processes run (`npm run load:fleet`, scripts/load/refresh-wave.ts): as docs/fleet.md
 * advises a fleet's processes to run.
 */
import type { LoadOptions } from './load-options.js'

/**
 * The environment of the workers and of the baseline's processes: two malloc arenas, as docs/fleet.md advises for a
 * process that makes many calls (glibc otherwise gives each thread that allocates, V8's compiler and collector threads
 * among them, an arena of its own that keeps what was freed in it: some 100 MB of RSS at 10 000 portals).
 */
export const WORKER_ENV = { MALLOC_ARENA_MAX: '2' }

/**
 * The workers' Node flags: `gc()` for the memory readings, and what docs/fleet.md advises: semi-spaces of 16 MB by default
 * (Node 24 otherwise grows them to 64 MB and keeps the pages: some 100 MB of RSS whatever the portals), and an old
 * generation that grows to at most twice what is live between full collections (V8's own factor lets it grow further,
 * and V8 keeps the pages a full collection freed for reuse: some 70 MB more RSS at 10 000 portals).
 */
export function workerNodeFlags(options: Pick<LoadOptions, 'semiSpaceMb' | 'heapGrowingPercent'>): string[] {
  const growing =
    options.heapGrowingPercent > 0 ? [`--heap-growing-percent=${options.heapGrowingPercent}`] : []
  return ['--expose-gc', `--max-semi-space-size=${options.semiSpaceMb}`, ...growing]
}
