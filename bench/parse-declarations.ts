/**
 * `node --import tsx bench/parse-declarations.ts [files]`: what TypeScript 5.9 spends parsing declaration files, as
 * an editor's language service parses them when a project opens (doc comments included, which `tsc` skips), and
 * without their doc comments: median and min CPU milliseconds of `ROUNDS` parses (default 9) per file. Without
 * files: the built catalogue's (`dist/src/catalogue/*.generated.d.ts`) and TypeScript's `lib.dom.d.ts` beside them.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join, resolve } from 'node:path'
import ts from 'typescript5'
import { runMain } from '../scripts/dev/run-main.js'

const root = resolve(import.meta.dirname, '..')
const rounds = Number(process.env.ROUNDS ?? 9)
const MODES = [
  ['with doc comments', ts.JSDocParsingMode.ParseAll],
  ['without', ts.JSDocParsingMode.ParseNone],
] as const

/** CPU milliseconds of one parse of `text`, parent nodes set as the language service sets them. */
function parseOnce(file: string, text: string, mode: ts.JSDocParsingMode): number {
  const started = process.cpuUsage()
  ts.createSourceFile(file, text, { languageVersion: ts.ScriptTarget.ES2022, jsDocParsingMode: mode }, true)
  const { user, system } = process.cpuUsage(started)
  return (user + system) / 1000
}

async function main(): Promise<number> {
  const lib = dirname(createRequire(import.meta.url).resolve('typescript5'))
  const files =
    process.argv.length > 2
      ? process.argv.slice(2)
      : [
          join(root, 'dist/src/catalogue/method-types.generated.d.ts'),
          join(root, 'dist/src/catalogue/result-types.generated.d.ts'),
          join(lib, 'lib.dom.d.ts'),
        ]
  console.log(`file | kB | ${MODES.map(([name]) => `${name}: median, min (ms)`).join(' | ')}`)
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    // The modes alternated, so that the machine's other work falls on both alike.
    const times = MODES.map((): number[] => [])
    for (let round = 0; round < rounds; round++) {
      for (const [index, [, mode]] of MODES.entries()) times[index]?.push(parseOnce(file, text, mode))
    }
    const cells = times.map((kept) => {
      const sorted = kept.sort((a, b) => a - b)
      return `${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)}, ${sorted[0]?.toFixed(0)}`
    })
    console.log(`${basename(file)} | ${(text.length / 1000).toFixed(0)} | ${cells.join(' | ')}`)
  }
  return 0
}

runMain(main)
