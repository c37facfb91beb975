import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { FleetWorkerInput, FromFleetWorker } from '../children/fleet-worker.js'

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

/** One worker process and a way to wait for its next message. */
function startWorker(input: FleetWorkerInput): { child: ChildProcess; next: () => Promise<FromFleetWorker> } {
  const child = fork(SCRIPT, [JSON.stringify(input)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const queue: FromFleetWorker[] = []
  const waiting: Array<(message: FromFleetWorker) => void> = []
  child.on('message', (message: FromFleetWorker) => {
    const waiter = waiting.shift()
    if (waiter) waiter(message)
    else queue.push(message)
  })
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`fleet worker exited with code ${code}`))),
  )
  exited.catch(() => undefined)
  const next = (): Promise<FromFleetWorker> => {
    const queued = queue.shift()
    if (queued) return Promise.resolve(queued)
    return Promise.race([new Promise<FromFleetWorker>((resolve) => waiting.push(resolve)), exited])
  }
  return { child, next }
}

/** Calls before the measured ones, not counted: a process's first calls load and compile code. */
export interface FleetWarmUp {
  /** Calls of each process, all at once. */
  callsEach: number
  /** Runs after the warm-up, before the measured calls (empty the buckets, clear the log). */
  reset: () => Promise<void>
}

/** Orders every worker to make `callsEach` calls at once; what they did, summed. */
async function go(workers: ReturnType<typeof startWorker>[], callsEach: number): Promise<FleetRun> {
  const started = performance.now()
  const answers = workers.map((worker) => worker.next())
  for (const worker of workers) worker.child.send({ type: 'go', calls: callsEach })
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
  const workers = Array.from({ length: processes }, () => startWorker(input))
  try {
    await Promise.all(workers.map((worker) => worker.next()))
    if (warmUp) {
      await go(workers, warmUp.callsEach)
      await warmUp.reset()
    }
    return await go(workers, callsEach)
  } finally {
    await Promise.all(
      workers.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once('exit', () => resolve())
            if (child.connected) child.send({ type: 'exit' })
            else child.kill('SIGKILL')
          }),
      ),
    )
  }
}
