import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { measureTypecheckBudget } from '../../scripts/catalogue/typecheck-measure.js'
import type { FigureResult } from '../lib/figure.js'
import { bytes, fixed } from '../lib/stats.js'

// The budgets of the method catalogue (issue: typed methods): what it adds to the packed package and to a
// consumer's type check. Its runtime table is loaded by the first call that needs it, never on import (the packed
// package test checks that), so the cold start row of the bench covers it.
const MAX_PACKED_GROWTH = 300 * 1024
const MAX_TYPECHECK_EXTRA_MS = 2_000
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Files of the catalogue in the package: the generated tables and types, their runtime readers, their docs. */
const isCatalogueFile = (path: string): boolean =>
  path.startsWith('dist/src/catalogue/') ||
  path.startsWith('dist/src/testing/catalogue.') ||
  path === 'docs/catalogue.md'

/** The gzipped tar of `files` (paths under the package root), bytes: how npm packs them. */
function tarballSize(files: readonly string[], dir: string): number {
  const list = join(dir, 'files.txt')
  const out = join(dir, 'package.tgz')
  writeFileSync(list, files.join('\n'))
  const run = spawnSync('tar', ['-czf', out, '-C', ROOT, '-T', list], { stdio: ['ignore', 'ignore', 'pipe'] })
  if (run.status !== 0) throw new Error(`tar failed: ${run.stderr.toString()}`)
  return readFileSync(out).length
}

/** The packed package with and without the catalogue's files, as `npm pack` lists them. */
function packedGrowth(dir: string): { with: number; without: number } {
  const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  if (pack.status !== 0) throw new Error(`npm pack --dry-run failed: ${pack.stderr}`)
  const [listing] = JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>
  const files = (listing?.files ?? []).map((file) => file.path)
  return {
    with: tarballSize(files, dir),
    without: tarballSize(
      files.filter((path) => !isCatalogueFile(path)),
      dir,
    ),
  }
}

/** The catalogue's budgets: packed package growth, and the type check of a consumer calling 20 methods. */
export function catalogueBudgetFigure(runs: number): FigureResult {
  const dir = mkdtempSync(join(tmpdir(), 'portal-oauth-catalogue-'))
  try {
    const packed = packedGrowth(dir)
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
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
