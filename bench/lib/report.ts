import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { FigureRow } from './figure.js'
import type { LoadReading } from './load.js'
import type { MachineInfo } from './machine.js'

const START = '<!-- bench:start -->'
const END = '<!-- bench:end -->'

/** A miss that load on the machine excuses: a time or CPU-ratio bar missed on a loaded run. */
export function excusedByLoad(row: FigureRow, load: LoadReading): boolean {
  return !row.pass && row.loadSensitive === true && load.loaded
}

/** The last cell of a row: `ok`, `n/a` or how a missed bar is printed. */
function verdict(row: FigureRow, missed: string, load: LoadReading): string {
  if (row.notApplicable) return 'n/a'
  if (row.pass) return 'ok'
  return excusedByLoad(row, load) ? `${missed} (loaded)` : missed
}

/** One line that says how much other work the machine did during the CPU figures. */
export function loadLine(load: LoadReading): string {
  const verdictText = load.loaded ? 'a loaded run' : 'an unloaded run'
  return `Other work on the machine during the CPU figure: ${load.otherCores.toFixed(2)} of ${load.cores} cores (${verdictText}).`
}

/** The summary as a plain-text table for the terminal. */
export function textTable(rows: readonly FigureRow[], load: LoadReading): string {
  const cells = [
    ['figure', 'measured', 'bar', ''],
    ...rows.map((row) => [row.figure, row.measured, row.bar, verdict(row, 'MISSED', load)]),
  ]
  const widths = [0, 1, 2, 3].map((column) => Math.max(...cells.map((line) => line[column]!.length)))
  const format = (line: string[]): string => line.map((cell, index) => cell.padEnd(widths[index]!)).join('  ')
  const rule = widths.map((width) => '-'.repeat(width)).join('  ')
  return [format(cells[0]!), rule, ...cells.slice(1).map(format)].join('\n')
}

/** The generated part of docs/benchmarks.md: machine, summary table, details. */
export function markdownSection(
  machine: MachineInfo,
  rows: readonly FigureRow[],
  details: readonly string[],
  load: LoadReading,
): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|')
  return [
    START,
    `Last run: ${machine.date}, ${machine.cpu} (${machine.cores} cores, ${machine.memoryGb} GB), Node ${machine.node}, ${machine.platform}.`,
    loadLine(load),
    '',
    '| figure | measured | bar | |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${cell(row.figure)} | ${cell(row.measured)} | ${cell(row.bar)} | ${verdict(row, '**missed**', load)} |`,
    ),
    '',
    ...details,
    END,
  ].join('\n')
}

/** Replaces the generated section of `path` (between the bench markers), or creates the file around it. */
export function writeSection(path: string, section: string): void {
  const current = existsSync(path) ? readFileSync(path, 'utf8') : ''
  const start = current.indexOf(START)
  const end = current.indexOf(END)
  const next =
    start >= 0 && end > start
      ? current.slice(0, start) + section + current.slice(end + END.length)
      : `# Benchmarks\n\nRun \`npm run bench\`.\n\n${section}\n${current}`
  writeFileSync(path, next)
}
