import { spawnSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { fixed, median } from '../../scripts/dev/stats.js'
import type { FigureResult } from '../lib/figure.js'

const MAX_EXTRA_MS = 150
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Wall time of one `node -e <code>` run from the package root, ms. */
function wall(code: string): number {
  const started = performance.now()
  const run = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
  const elapsed = performance.now() - started
  if (run.status !== 0) throw new Error(`node -e "${code}" failed: ${run.stderr.toString()}`)
  return elapsed
}

/**
 * Cold start: `node -e "import('portal-oauth')"` (the built dist, resolved through the package's own exports) against
 * `node -e "0"`, alternating, medians of `runs` each.
 */
export function coldStartFigure(runs: number): FigureResult {
  const importing = "import('portal-oauth')"
  const empty: number[] = []
  const loaded: number[] = []
  wall(importing)
  for (let run = 0; run < runs; run += 1) {
    empty.push(wall('0'))
    loaded.push(wall(importing))
  }
  const extra = median(loaded) - median(empty)
  return {
    rows: [
      {
        figure: 'cold start, node -e "import(\'portal-oauth\')"',
        measured: `+${fixed(extra)} ms (${fixed(median(loaded))} vs ${fixed(median(empty))} ms)`,
        bar: `<= +${MAX_EXTRA_MS} ms`,
        pass: extra <= MAX_EXTRA_MS,
        loadSensitive: true,
      },
    ],
    details: [`Cold start: medians of ${runs} alternating runs each.`],
  }
}
