/**
 * `npm run bench`: every figure measured against the portal emulator running in its own process, in one run.
 * Prints the table, rewrites the generated section of docs/benchmarks.md and exits 1 when a bar is missed.
 * `BENCH_ONLY=cpu,heap` runs some figures only (cpu, refresh, pacing, heap, list, fleet, cold); the doc is then left alone.
 */
import { fileURLToPath } from 'node:url'
import { callCpuFigure } from './figures/call-cpu.js'
import { coldStartFigure } from './figures/cold-start.js'
import { fetchListFigure } from './figures/fetch-list.js'
import { fleetFigures } from './figures/fleet.js'
import { idleHeapFigure } from './figures/idle-heap.js'
import { pacingFigure } from './figures/pacing.js'
import { refreshBurstFigure } from './figures/refresh-burst.js'
import type { FigureResult } from './lib/figure.js'
import { machineInfo } from './lib/machine.js'
import { markdownSection, textTable, writeSection } from './lib/report.js'
import { startBenchRig } from './lib/rig.js'

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
const only = process.env.BENCH_ONLY?.split(',').filter(Boolean)
const wanted = (name: string): boolean => !only || only.includes(name)

async function main(): Promise<number> {
  const machine = machineInfo()
  console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.date}`)
  const rig = await startBenchRig()
  const results: FigureResult[] = []
  const step = async (name: string, run: () => Promise<FigureResult> | FigureResult): Promise<void> => {
    if (!wanted(name)) return
    const started = Date.now()
    const result = await run()
    results.push(result)
    console.log(`  ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  try {
    await step('cpu', () => callCpuFigure(rig, { rounds: 13, sequentialCalls: 400, concurrentCalls: 1_200 }))
    await step('refresh', () => refreshBurstFigure(rig))
    await step('pacing', () => pacingFigure(rig))
    await step('heap', () => idleHeapFigure(rig))
    await step('list', () => fetchListFigure(rig))
    await step('fleet', () => fleetFigures(rig))
  } finally {
    await rig.close()
  }
  await step('cold', () => coldStartFigure(15))
  const rows = results.flatMap((result) => result.rows)
  const details = results.flatMap((result) => (result.details.length > 0 ? [...result.details, ''] : []))
  console.log(`\n${textTable(rows)}\n\n${details.join('\n')}`)
  if (!only) writeSection(DOC, markdownSection(machine, rows, details))
  const missed = rows.filter((row) => !row.pass)
  if (missed.length > 0) console.error(`${missed.length} bar(s) missed`)
  return missed.length > 0 ? 1 : 0
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  },
)
