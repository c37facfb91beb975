import { fileURLToPath } from 'node:url'
import { type ForkedWorker, forkWorker } from '../../scripts/dev/forked-worker.js'
import type { FleetWorkerInput, FromFleetWorker, ToFleetWorker } from '../children/fleet-worker.js'

const SCRIPT = fileURLToPath(new URL('../children/fleet-worker.ts', import.meta.url))

/** What the processes of one run did together. */
export interface FleetRun {
  /** Calls that succeeded, over every process. */
  ok: number
  /** Error codes of the calls that failed. */
  failed: string[]
  /** From the order to go to the last process's answer, ms. */
  elapsedMs: number
}

type Worker = ForkedWorker<ToFleetWorker, FromFleetWorker>

/** Calls before the measured ones, not counted: a process's first calls load and compile code. */
export interface FleetWarmUp {
  /** Calls of each process, all at once. */
  callsEach: number
  /** Runs after the warm-up, before the measured calls (empty the buckets, clear the log). */
  reset: () => Promise<void>
}

/** Orders every worker to make `callsEach` calls at once; what they did, summed. */
async function go(workers: Worker[], callsEach: number): Promise<FleetRun> {
  const started = performance.now()
  const answers = workers.map((worker) => worker.next())
  for (const worker of workers) worker.send({ type: 'go', calls: callsEach })
  const done = await Promise.all(answers)
  const run: FleetRun = { ok: 0, failed: [], elapsedMs: performance.now() - started }
  for (const message of done) {
    if (message.type !== 'done') throw new Error(`fleet worker answered ${message.type}`)
    run.ok += message.ok
    run.failed.push(...message.failed)
  }
  return run
}

/**
 * Starts `processes` worker processes, waits until every one is connected, runs the warm-up when there is one, then
 * orders each to make `callsEach` calls at once, and stops them.
 */
export async function runFleetWorkers(
  processes: number,
  callsEach: number,
  input: FleetWorkerInput,
  warmUp?: FleetWarmUp,
): Promise<FleetRun> {
  const workers: Worker[] = Array.from({ length: processes }, () =>
    forkWorker<ToFleetWorker, FromFleetWorker>(SCRIPT, input),
  )
  try {
    await Promise.all(workers.map((worker) => worker.next()))
    if (warmUp) {
      await go(workers, warmUp.callsEach)
      await warmUp.reset()
    }
    return await go(workers, callsEach)
  } finally {
    await Promise.all(workers.map((worker) => worker.stop({ type: 'exit' })))
  }
}
