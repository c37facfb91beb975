import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { FigureResult } from '../lib/figure.js'
import { bytes, fixed, median } from '../lib/stats.js'

// The budgets of the method catalogue (issue: typed methods): what it adds to the packed package and to a
// consumer's type check. Its runtime table is loaded by the first call that needs it, never on import (the packed
// package test checks that), so the cold start row of the bench covers it.
const MAX_PACKED_GROWTH = 300 * 1024
const MAX_TYPECHECK_EXTRA_MS = 2_000
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CONSUMER = fileURLToPath(new URL('../catalogue/consumer-20-methods.ts', import.meta.url))
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

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

/** Wall time of one `tsc -p config`, ms; throws when the file does not type-check. */
function typeCheck(config: string): number {
  const started = performance.now()
  const run = spawnSync(process.execPath, [TSC, '-p', config], { encoding: 'utf8' })
  const elapsed = performance.now() - started
  if (run.status !== 0) throw new Error(`tsc -p ${config} failed:\n${run.stdout}`)
  return elapsed
}

/** A consumer project with the built package linked in, and the 20-method file checked and unchecked. */
function consumerProject(dir: string): { checked: string; unchecked: string } {
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules', 'portal-oauth'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  const source = readFileSync(CONSUMER, 'utf8')
  writeFileSync(join(dir, 'checked.ts'), source)
  // The same calls with `method: string` semantics: every call opts out of the catalogue.
  writeFileSync(join(dir, 'unchecked.ts'), source.replace(/ }\),$/gm, ', unchecked: true }),'))
  const compilerOptions = {
    target: 'es2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  }
  const config = (file: string): string => {
    const path = join(dir, `tsconfig.${file}.json`)
    writeFileSync(path, JSON.stringify({ compilerOptions, files: [`${file}.ts`] }))
    return path
  }
  return { checked: config('checked'), unchecked: config('unchecked') }
}

/** The catalogue's budgets: packed package growth, and the type check of a consumer calling 20 methods. */
export function catalogueBudgetFigure(runs: number): FigureResult {
  const dir = mkdtempSync(join(tmpdir(), 'portal-oauth-catalogue-'))
  try {
    const packed = packedGrowth(dir)
    const growth = packed.with - packed.without
    const project = consumerProject(dir)
    const checked: number[] = []
    const unchecked: number[] = []
    typeCheck(project.checked)
    for (let run = 0; run < runs; run += 1) {
      unchecked.push(typeCheck(project.unchecked))
      checked.push(typeCheck(project.checked))
    }
    const extra = median(checked) - median(unchecked)
    return {
      rows: [
        {
          figure: 'packed package growth from the method catalogue',
          measured: `+${bytes(growth)} (${bytes(packed.without)} to ${bytes(packed.with)})`,
          bar: `<= +${bytes(MAX_PACKED_GROWTH)}`,
          pass: growth <= MAX_PACKED_GROWTH,
        },
        {
          figure: 'tsc of a consumer calling 20 methods, checked over unchecked',
          measured: `+${fixed(extra)} ms (${fixed(median(checked))} vs ${fixed(median(unchecked))} ms)`,
          bar: `<= +${MAX_TYPECHECK_EXTRA_MS} ms`,
          pass: extra <= MAX_TYPECHECK_EXTRA_MS,
          loadSensitive: true,
        },
      ],
      details: [
        `Method catalogue: the packed growth is the gzipped tar of the files \`npm pack\` lists against the same without the catalogue's (dist/src/catalogue, the emulator's catalogue reader, docs/catalogue.md). The type check is \`tsc -p\` of bench/catalogue/consumer-20-methods.ts as it is and with \`unchecked: true\` on every call, medians of ${runs} alternating runs.`,
      ],
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
