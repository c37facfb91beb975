/**
 * `npm run bench`: every figure measured against the portal emulator running in its own process, in one run.
 * Prints the table and exits 1 when a bar is missed; a time or CPU-ratio bar missed on a loaded machine (other work
 * of half a core or more during the CPU figure, see lib/load.ts) is printed as missed and does not fail the run,
 * unless `BENCH_STRICT=1`. `BENCH_WRITE=1` also rewrites the generated section of docs/benchmarks.md (a full run
 * only). `BENCH_ONLY=cpu,heap` runs some figures only (cpu, refresh, pacing, heap, list, fleet, cold, catalogue).
 */
import { fileURLToPath } from 'node:url'
import { runMain } from '../scripts/dev/run-main.js'
import { callCpuFigure } from './figures/call-cpu.js'
import { catalogueBudgetFigure } from './figures/catalogue-budgets.js'
import { coldStartFigure } from './figures/cold-start.js'
import { fetchListFigure } from './figures/fetch-list.js'
import { fleetFigures } from './figures/fleet.js'
import { idleHeapFigure } from './figures/idle-heap.js'
import { pacingFigure } from './figures/pacing.js'
import { refreshBurstFigure } from './figures/refresh-burst.js'
import { refreshHeapFigure } from './figures/refresh-heap.js'
import type { FigureResult } from './lib/figure.js'
import { type LoadReading, startLoadMeter } from './lib/load.js'
import { machineInfo } from './lib/machine.js'
import { excusedByLoad, loadLine, markdownSection, textTable, writeSection } from './lib/report.js'
import { startBenchRig } from './lib/rig.js'

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
const only = process.env.BENCH_ONLY?.split(',').filter(Boolean)
const wanted = (name: string): boolean => !only || only.includes(name)
const write = process.env.BENCH_WRITE === '1'
const strict = process.env.BENCH_STRICT === '1'

async function main(): Promise<number> {
  const machine = machineInfo()
  console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.date}`)
  const rig = await startBenchRig()
  const results: FigureResult[] = []
  // The load is read over the CPU figure, which starts no process of its own besides the emulator; without that
  // figure, over the whole run (then the children of other figures count as other work too).
  let load: LoadReading | null = null
  const runMeter = startLoadMeter(rig.emulator.pid)
  const step = async (name: string, run: () => Promise<FigureResult> | FigureResult): Promise<void> => {
    if (!wanted(name)) return
    const started = Date.now()
    const result = await run()
    results.push(result)
    console.log(`  ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  try {
    await step('cpu', async () => {
      const meter = startLoadMeter(rig.emulator.pid)
      const result = await callCpuFigure(rig, { rounds: 13, sequentialCalls: 400, concurrentCalls: 1_200 })
      load = meter.stop()
      return result
    })
    await step('refresh', () => refreshBurstFigure(rig))
    await step('pacing', () => pacingFigure(rig))
    await step('heap', async () => {
      const parts = [await idleHeapFigure(rig), await refreshHeapFigure(rig)]
      return { rows: parts.flatMap((part) => part.rows), details: parts.flatMap((part) => part.details) }
    })
    await step('list', () => fetchListFigure(rig))
    await step('fleet', () => fleetFigures(rig))
  } finally {
    await rig.close()
  }
  await step('cold', () => coldStartFigure(15))
  await step('catalogue', () => catalogueBudgetFigure(3))
  const reading = load ?? runMeter.stop()
  const rows = results.flatMap((result) => result.rows)
  const details = results.flatMap((result) => (result.details.length > 0 ? [...result.details, ''] : []))
  console.log(`\n${textTable(rows, reading)}\n\n${details.join('\n')}${loadLine(reading)}`)
  if (write && !only) {
    writeSection(DOC, markdownSection(machine, rows, details, reading))
    console.log('docs/benchmarks.md rewritten')
  } else {
    console.log(
      only
        ? 'docs/benchmarks.md left alone (a partial run)'
        : 'docs/benchmarks.md left alone (BENCH_WRITE=1 rewrites it)',
    )
  }
  const missed = rows.filter((row) => !row.pass)
  const excused = strict ? [] : missed.filter((row) => excusedByLoad(row, reading))
  if (excused.length > 0) {
    console.error(
      `${excused.length} time or CPU bar(s) missed on a loaded machine: not counted (BENCH_STRICT=1 counts them)`,
    )
  }
  const failed = missed.length - excused.length
  if (failed > 0) console.error(`${failed} bar(s) missed`)
  return failed > 0 ? 1 : 0
}

runMain(main)
