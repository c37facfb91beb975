/**
 * Prints the mutation score per folder, and the surviving mutants, from the incremental files `npm run mutation`
 * (src/auth, src/http, src/limits, machines/) and `npm run mutation:fleet-store` (src/fleet, src/store, src/trust)
 * keep (.cache/stryker/, ignored by git). Usage:
 * `npx tsx scripts/dev/mutation-score.ts [--files] [--survivors]` (`--files`: a row per source file too).
 */
import { existsSync, readFileSync } from 'node:fs'

interface Mutant {
  mutatorName: string
  replacement?: string
  status: string
  location: { start: { line: number; column: number } }
}

// Each config mutates its own folders, so a source file is in one of them.
const FILES = ['.cache/stryker/incremental.json', '.cache/stryker/incremental-fleet-store.json']
const report: { files: Record<string, { mutants: Mutant[] }> } = { files: {} }
for (const file of FILES.filter((each) => existsSync(each))) {
  const { files } = JSON.parse(readFileSync(file, 'utf8')) as { files: Record<string, { mutants: Mutant[] }> }
  Object.assign(report.files, files)
}
const DETECTED = new Set(['Killed', 'Timeout'])
const UNDETECTED = new Set(['Survived', 'NoCoverage'])

interface Counts {
  detected: number
  undetected: number
  other: number
}

/** The counts of `mutants` added to `counts`. */
function count(counts: Counts, mutants: Mutant[]): Counts {
  for (const mutant of mutants) {
    if (DETECTED.has(mutant.status)) counts.detected += 1
    else if (UNDETECTED.has(mutant.status)) counts.undetected += 1
    else counts.other += 1
  }
  return counts
}

function printTable(heading: string, rows: Map<string, Counts>): void {
  console.log(`| ${heading} | killed or timed out | survived or not covered | other | score |`)
  console.log('| --- | --- | --- | --- | --- |')
  for (const [name, { detected, undetected, other }] of [...rows].sort()) {
    const score =
      detected + undetected === 0 ? 'n/a' : `${((100 * detected) / (detected + undetected)).toFixed(1)} %`
    console.log(`| ${name} | ${detected} | ${undetected} | ${other} | ${score} |`)
  }
}

const folders = new Map<string, Counts>()
const files = new Map<string, Counts>()
for (const [file, { mutants }] of Object.entries(report.files)) {
  const folder = file.split('/').slice(0, -1).join('/')
  folders.set(folder, count(folders.get(folder) ?? { detected: 0, undetected: 0, other: 0 }, mutants))
  files.set(file, count({ detected: 0, undetected: 0, other: 0 }, mutants))
}
printTable('folder', folders)
if (process.argv.includes('--files')) {
  console.log('')
  printTable('file', files)
}
if (process.argv.includes('--survivors')) {
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const mutant of mutants.filter((each) => UNDETECTED.has(each.status))) {
      const { line, column } = mutant.location.start
      console.log(
        `${file}:${line}:${column} ${mutant.status} ${mutant.mutatorName} ${mutant.replacement ?? ''}`,
      )
    }
  }
}
