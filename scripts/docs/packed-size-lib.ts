/**
 * The packed package's size and what the method catalogue adds to it, measured from what `npm pack` ships, and the
 * figure docs/catalogue.md states about them. `scripts/docs/packed-size.ts` checks or rewrites that figure; the
 * bench's catalogue row measures the growth the same way.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Files of the catalogue in the package: the generated tables and types, their runtime readers, their docs. */
export const isCatalogueFile = (path: string): boolean =>
  path.startsWith('dist/src/catalogue/') ||
  path.startsWith('dist/src/testing/catalogue.') ||
  path === 'docs/catalogue.md'

/** What the package weighs packed, bytes. */
export interface PackedSizes {
  /** The tarball `npm pack` writes (its `size`). */
  tarball: number
  /** The gzipped tar of the files `npm pack` lists. */
  withCatalogue: number
  /** The same without the catalogue's files. */
  withoutCatalogue: number
}

/** The gzipped tar of `files` (paths under `root`), bytes: how npm packs them. */
function tarballSize(root: string, files: readonly string[], dir: string): number {
  const list = join(dir, 'files.txt')
  const out = join(dir, 'package.tgz')
  writeFileSync(list, files.join('\n'))
  const run = spawnSync('tar', ['-czf', out, '-C', root, '-T', list], { stdio: ['ignore', 'ignore', 'pipe'] })
  if (run.status !== 0) throw new Error(`tar failed: ${run.stderr.toString()}`)
  return readFileSync(out).length
}

/**
 * Measures the package at `root` as `npm pack --dry-run` lists it. `build`: let npm run `prepack` (a fresh build)
 * first; without it the `dist/` there is measured as it is.
 */
export function measurePackedSizes(root: string, options: { build: boolean }): PackedSizes {
  const pack = spawnSync(
    'npm',
    ['pack', '--dry-run', '--json', ...(options.build ? [] : ['--ignore-scripts'])],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 },
  )
  if (pack.status !== 0) throw new Error(`npm pack --dry-run failed: ${pack.stderr}`)
  // With prepack, the build's own output comes before the JSON.
  const json = pack.stdout.slice(pack.stdout.indexOf('[\n'))
  const [listing] = JSON.parse(json) as Array<{ size: number; files: Array<{ path: string }> }>
  if (!listing) throw new Error('npm pack --dry-run listed nothing')
  const files = listing.files.map((file) => file.path)
  const dir = mkdtempSync(join(tmpdir(), 'portal-oauth-packed-'))
  try {
    return {
      tarball: listing.size,
      withCatalogue: tarballSize(root, files, dir),
      withoutCatalogue: tarballSize(
        root,
        files.filter((path) => !isCatalogueFile(path)),
        dir,
      ),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `n` bytes in kB (1 000 bytes, as npm prints sizes), one decimal. */
export function kB(n: number): string {
  return `${(n / 1000).toFixed(1)} kB`
}

/** The command that produces the figure, named beside it in the documentation. */
export const FIGURE_COMMAND = 'npm run docs:packed-size'

/** The measured cell of the budget row of docs/catalogue.md. */
export function packedSizeCell(sizes: PackedSizes): string {
  const growth = sizes.withCatalogue - sizes.withoutCatalogue
  return `+${kB(growth)} (\`tar -czf\` of the files \`npm pack\` lists: ${kB(sizes.withoutCatalogue)} without the catalogue's, ${kB(sizes.withCatalogue)} with them); the tarball is ${kB(sizes.tarball)} (\`${FIGURE_COMMAND}\`); no source maps ship (README.md, "Node versions")`
}

/** The budget row whose measured cell is the packed size. */
const ROW = /^(\| packed package growth, at most 300 kB \| )(.*)( \|)$/m

/** The tarball size docs/catalogue.md states, bytes, or `undefined` when the row says none. */
export function documentedTarball(text: string): number | undefined {
  const cell = ROW.exec(text)?.[2] ?? ''
  const figure = /the tarball is ([\d.]+) kB/.exec(cell)?.[1]
  return figure === undefined ? undefined : Math.round(Number(figure) * 1000)
}

/** `text` with the budget row's measured cell replaced by `cell`. */
export function withPackedSizeCell(text: string, cell: string): string {
  if (!ROW.test(text)) throw new Error('docs/catalogue.md has no "packed package growth" budget row')
  return text.replace(ROW, (_row, head: string, _old: string, tail: string) => `${head}${cell}${tail}`)
}

/**
 * How far a measured tarball may be from the documented one: gzip's output moves with the tar's timestamps and
 * npm's version by a few hundred bytes; 1 % is far above that and far below a change worth writing down.
 */
export const TARBALL_TOLERANCE = 0.01

/** Whether `measured` bytes is the documented figure within {@link TARBALL_TOLERANCE}. */
export function tarballMatches(documented: number, measured: number): boolean {
  return Math.abs(measured - documented) <= documented * TARBALL_TOLERANCE
}
