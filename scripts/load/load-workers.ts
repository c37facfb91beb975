/**
 * The worker processes of `npm run load:fleet` (and of scripts/load/refresh-wave.ts) as the parent runs them: forked
 * with their input in a file and the flags docs/fleet.md advises, and heard round by round.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type ForkedWorker, forkWorker } from '../dev/forked-worker.js'
import type { LoadOptions } from './load-options.js'
import type { FromLoadWorker, LoadWorkerInput, ToLoadWorker } from './load-protocol.js'

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url))

/** A worker process of the load test. */
export type LoadWorker = ForkedWorker<ToLoadWorker, FromLoadWorker>

/**
 * The environment of the workers and of the baseline's processes: two malloc arenas, as docs/fleet.md advises for a
 * process that makes many calls (glibc otherwise gives each thread that allocates, V8's compiler and collector threads
 * among them, an arena of its own that keeps what was freed in it: some 100 MB of RSS at 10 000 portals).
 */
export const WORKER_ENV = { MALLOC_ARENA_MAX: '2' }

/**
 * The workers' Node flags: `gc()` for the memory readings, and what docs/fleet.md advises: semi-spaces of 16 MB by
 * default (Node 24 otherwise grows them to 64 MB and keeps the pages: some 100 MB of RSS whatever the portals), and an
 * old generation that grows to at most twice what is live between full collections (V8's own factor lets it grow
 * further, and V8 keeps the pages a full collection freed for reuse: some 70 MB more RSS at 10 000 portals).
 */
function workerNodeFlags(options: Pick<LoadOptions, 'semiSpaceMb' | 'heapGrowingPercent'>): string[] {
  const growing =
    options.heapGrowingPercent > 0 ? [`--heap-growing-percent=${options.heapGrowingPercent}`] : []
  return ['--expose-gc', `--max-semi-space-size=${options.semiSpaceMb}`, ...growing]
}

/** The next answer of every worker, each checked to be of `type`. */
export async function answers<T extends FromLoadWorker['type']>(
  workers: readonly LoadWorker[],
  type: T,
): Promise<Array<Extract<FromLoadWorker, { type: T }>>> {
  const all = await Promise.all(workers.map((worker) => worker.next()))
  for (const answer of all)
    if (answer.type !== type) throw new Error(`a worker answered ${answer.type}, not ${type}`)
  return all as Array<Extract<FromLoadWorker, { type: T }>>
}

/** Where the workers' inputs are written, removed when the run ends. */
let inputDir: string | undefined

/**
 * The path of a file holding `input` as JSON: the member ids of 10 000 portals are more than one argument of a
 * process may hold (128 KB on Linux).
 */
function inputFile(input: LoadWorkerInput): string {
  if (!inputDir) {
    const dir = mkdtempSync(join(tmpdir(), 'load-fleet-'))
    inputDir = dir
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  const file = join(inputDir, `input-${randomUUID()}.json`)
  writeFileSync(file, JSON.stringify(input))
  return file
}

/**
 * Starts `options.processes` workers on `input`, run with {@link workerNodeFlags} and {@link WORKER_ENV}; their
 * progress reports go into `progress` (calls so far per worker).
 */
export function startWorkers(
  options: Pick<LoadOptions, 'processes' | 'semiSpaceMb' | 'heapGrowingPercent'>,
  input: LoadWorkerInput,
  progress: Array<{ ok: number; failed: number }> = [],
): LoadWorker[] {
  const file = inputFile(input)
  return Array.from({ length: options.processes }, (_, index) => {
    progress[index] = { ok: 0, failed: 0 }
    return forkWorker<ToLoadWorker, FromLoadWorker>(WORKER, file, {
      execArgv: workerNodeFlags(options),
      env: WORKER_ENV,
      notice: (message) => {
        if (message.type !== 'progress') return false
        progress[index] = { ok: message.ok, failed: message.failed }
        return true
      },
    })
  })
}

/**
 * One warm-up round of every worker (one call on each of its steady or expiring portals), each worker collecting its
 * heap after it when `collect` is set; their answers.
 */
export async function warmUpRound(
  workers: readonly LoadWorker[],
  portals: 'steady' | 'expiring',
  collect = false,
): Promise<Array<Extract<FromLoadWorker, { type: 'warmed' }>>> {
  for (const worker of workers) worker.send({ type: 'warm-up', portals, collect })
  return answers(workers, 'warmed')
}

/** The calls of a round that failed, whatever their error code. */
export function failedCalls(answer: { failed: Record<string, number> }): number {
  return Object.values(answer.failed).reduce((sum, calls) => sum + calls, 0)
}
