/**
 * `npm run docs:packed-size`: measures the packed package (a fresh build first, as `npm pack` does) and checks the
 * figure of docs/catalogue.md's budget row against it; exits 1 when the tarball differs by more than the tolerance.
 * `-- --write` rewrites the row with the measured figures instead.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  documentedTarball,
  kB,
  measurePackedSizes,
  packedSizeCell,
  TARBALL_TOLERANCE,
  tarballMatches,
  withPackedSizeCell,
} from './packed-size-lib.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const page = join(root, 'docs', 'catalogue.md')
const sizes = measurePackedSizes(root, { build: true })
const text = readFileSync(page, 'utf8')
const cell = packedSizeCell(sizes)
console.log(`measured: ${cell}`)
if (process.argv.includes('--write')) {
  writeFileSync(page, withPackedSizeCell(text, cell))
  console.log('docs/catalogue.md updated')
} else {
  const documented = documentedTarball(text)
  if (documented === undefined || !tarballMatches(documented, sizes.tarball)) {
    console.error(
      `docs/catalogue.md states ${documented === undefined ? 'no tarball size' : kB(documented)}, the tarball is ${kB(sizes.tarball)} (more than ${TARBALL_TOLERANCE * 100} % apart): run npm run docs:packed-size -- --write`,
    )
    process.exitCode = 1
  } else {
    console.log(`docs/catalogue.md states ${kB(documented)}: within ${TARBALL_TOLERANCE * 100} %`)
  }
}
