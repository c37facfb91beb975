/**
 * Prints the mutation score per folder, and the surviving mutants, from the incremental files `npm run mutation`
 * and `npm run mutation:fleet-store` keep (.cache/stryker/, ignored by git). Usage:
 * `npx tsx scripts/dev/mutation-score.ts [--survivors]`.
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

const folders = new Map<string, { detected: number; undetected: number; other: number }>()
for (const [file, { mutants }] of Object.entries(report.files)) {
  const folder = file.split('/').slice(0, -1).join('/')
  const counts = folders.get(folder) ?? { detected: 0, undetected: 0, other: 0 }
  for (const mutant of mutants) {
    if (DETECTED.has(mutant.status)) counts.detected += 1
    else if (UNDETECTED.has(mutant.status)) counts.undetected += 1
    else counts.other += 1
  }
  folders.set(folder, counts)
}
console.log('| folder | killed or timed out | survived or not covered | other | score |')
console.log('| --- | --- | --- | --- | --- |')
for (const [folder, { detected, undetected, other }] of [...folders].sort()) {
  const score =
    detected + undetected === 0 ? 'n/a' : `${((100 * detected) / (detected + undetected)).toFixed(1)} %`
  console.log(`| ${folder} | ${detected} | ${undetected} | ${other} | ${score} |`)
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
