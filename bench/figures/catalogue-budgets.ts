import { fileURLToPath } from 'node:url'
import { measureTypecheckBudget } from '../../scripts/catalogue/typecheck-measure.js'
import { bytes, fixed } from '../../scripts/dev/stats.js'
import { measurePackedSizes } from '../../scripts/docs/packed-size-lib.js'
import type { FigureResult } from '../lib/figure.js'

// The budgets of the method catalogue (issue: typed methods): what it adds to the packed package and to a
// consumer's type check. Its runtime table is loaded by the first call that needs it, never on import (the packed
// package test checks that), so the cold start row of the bench covers it.
const MAX_PACKED_GROWTH = 300 * 1024
const MAX_TYPECHECK_EXTRA_MS = 2_000
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The catalogue's budgets: packed package growth, and the type check of a consumer calling 20 methods. */
export function catalogueBudgetFigure(runs: number): FigureResult {
  const sizes = measurePackedSizes(ROOT, { build: false })
  const packed = { with: sizes.withCatalogue, without: sizes.withoutCatalogue }
  const growth = packed.with - packed.without
  // The entry point the catalogue costs the most (call.make, the lists, the batches): `npm run catalogue:budget`'s.
  const [worst] = measureTypecheckBudget(runs, {
    compilers: ['7'],
    entryPoints: ['call', 'list', 'batch'],
  }).sort((a, b) => b.catalogueSeconds - b.stringSeconds - (a.catalogueSeconds - a.stringSeconds))
  if (!worst) throw new Error('no type-check budget measured')
  const extra = (worst.catalogueSeconds - worst.stringSeconds) * 1000
  return {
    rows: [
      {
        figure: 'packed package growth from the method catalogue',
        measured: `+${bytes(growth)} (${bytes(packed.without)} to ${bytes(packed.with)})`,
        bar: `<= +${bytes(MAX_PACKED_GROWTH)}`,
        pass: growth <= MAX_PACKED_GROWTH,
      },
      {
        figure: 'tsc of a consumer of 20 methods, catalogue over method: string',
        measured: `+${fixed(extra)} ms for ${worst.entryPoint} (${fixed(worst.catalogueSeconds * 1000)} vs ${fixed(worst.stringSeconds * 1000)} ms)`,
        bar: `<= +${MAX_TYPECHECK_EXTRA_MS} ms`,
        pass: extra <= MAX_TYPECHECK_EXTRA_MS,
        loadSensitive: true,
      },
    ],
    details: [
      `Method catalogue: the packed growth is the gzipped tar of the files \`npm pack\` lists against the same without the catalogue's (dist/src/catalogue, the emulator's catalogue reader, docs/catalogue.md). The type check is \`npm run catalogue:budget\`'s (scripts/catalogue/typecheck-measure.ts): \`tsc -p\` of a strict consumer calling 20 documented methods through each entry point (call.make, the lists, the batches), against the built package and against a copy whose catalogue names no method (\`method: string\`), on TypeScript 7, CPU time (user and system), medians of ${runs} alternating runs; the row shows the entry point that costs the most. \`npm run catalogue:budget\` measures TypeScript 5.9 too.`,
    ],
  }
}
