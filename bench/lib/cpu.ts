import { median } from '../../scripts/dev/stats.js'

/** One way of making the measured call, compared with others in the same rounds. */
export interface CpuVariant {
  name: string
  call: () => Promise<void>
  close: () => Promise<void>
}

/** How the calls of a measurement run: how many, how many at once. */
export interface CpuMode {
  label: string
  calls: number
  concurrency: number
}

/**
 * Which CPU a figure reads. `process`: the whole process's (`process.cpuUsage()`), what a call costs the machine,
 * garbage collection and the JIT included. `main`: the main thread's (`process.threadCpuUsage()`), where the
 * JavaScript of the call runs. V8's compiler and GC helper threads run beside it, and their time lands in whichever
 * window happens to be open: the client measured against itself (16 rounds of 400 calls each) read 0.59x to 2.2x
 * across rounds on the process's CPU (quartiles 0.69x and 1.24x), 0.78x to 1.34x on the main thread's (0.98x and
 * 1.18x).
 * A ratio of two variants that differ by a few per cent (the client's own code over ky's) is read on `main`.
 */
export type CpuClock = 'process' | 'main'

/** CPU per call of every variant in every kept round, with the medians the figures print. */
export interface CpuSamples {
  /** Median over the rounds of the CPU per call of variant `index`, us. */
  us(mode: string, index: number, clock?: CpuClock): number
  /** Median over the rounds of variant `index`'s CPU per call divided by variant `base`'s in the same round. */
  ratio(mode: string, index: number, base: number, clock?: CpuClock): number
}

/** CPU per call on both clocks, us. */
type CpuPerCall = Record<CpuClock, number>

/** The main thread's CPU; the whole process's where `process.threadCpuUsage()` is missing (early Node 22 releases). */
export const mainThreadCpu: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage =
  typeof process.threadCpuUsage === 'function'
    ? (previous) => process.threadCpuUsage(previous)
    : (previous) => process.cpuUsage(previous)

/** CPU (user + system) per call on both clocks, in microseconds: `calls` calls, `concurrency` at a time. */
export async function cpuPerCall(
  call: () => Promise<void>,
  calls: number,
  concurrency: number,
): Promise<CpuPerCall> {
  const before = process.cpuUsage()
  const beforeMain = mainThreadCpu()
  await runCalls(call, calls, concurrency)
  const used = process.cpuUsage(before)
  const usedMain = mainThreadCpu(beforeMain)
  return {
    process: (used.user + used.system) / calls,
    main: (usedMain.user + usedMain.system) / calls,
  }
}

/**
 * Measures every variant in every mode, `rounds` times after one warm-up round (JIT, connection pools, the
 * emulator's caches) that is not kept, then closes the variants. Within a round the order rotates, so that no
 * variant always runs right after the same neighbour, and ratios are taken within a round, where the variants ran
 * side by side under the same load.
 */
export async function cpuRounds(
  variants: readonly CpuVariant[],
  modes: readonly CpuMode[],
  rounds: number,
): Promise<CpuSamples> {
  const samples = new Map<string, CpuPerCall[][]>(modes.map((mode) => [mode.label, []]))
  try {
    for (let round = 0; round <= rounds; round += 1) {
      for (const mode of modes) {
        const measured: CpuPerCall[] = new Array(variants.length)
        for (let step = 0; step < variants.length; step += 1) {
          const index = (step + round) % variants.length
          measured[index] = await cpuPerCall(variants[index]!.call, mode.calls, mode.concurrency)
        }
        if (round > 0) samples.get(mode.label)!.push(measured)
      }
    }
  } finally {
    await Promise.all(variants.map((variant) => variant.close()))
  }
  const kept = (mode: string): CpuPerCall[][] => samples.get(mode) ?? []
  return {
    us: (mode, index, clock = 'process') => median(kept(mode).map((round) => round[index]![clock])),
    ratio: (mode, index, base, clock = 'process') =>
      median(kept(mode).map((round) => round[index]![clock] / round[base]![clock])),
  }
}

/** The process's CPU (user + system) so far, us: precise to the microsecond, unlike the main thread's (see below). */
function processCpu(): number {
  const used = process.cpuUsage()
  return used.user + used.system
}

/**
 * The order of the variants at step `step` of {@link interleavedCpu}: rotated by one every second step, reversed
 * every other, so that each variant runs after each other one equally often (all six orders of three variants).
 */
function stepOrder(count: number, step: number): number[] {
  const start = Math.floor(step / 2) % count
  const order = Array.from({ length: count }, (_, offset) => (start + offset) % count)
  return step % 2 === 0 ? order : order.reverse()
}

/** Runs `calls` calls, `concurrency` at a time. */
async function runCalls(call: () => Promise<void>, calls: number, concurrency: number): Promise<void> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1
      await call()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/**
 * The variants interleaved turn by turn, a turn being `mode.calls` calls of one variant (`mode.concurrency` at a
 * time), each turn's CPU read on the process's clock and summed per block of `blockTurns` turns of each variant; a
 * first block warms up and is not kept. `us` (per call) and `ratio` are the medians over the blocks; the clock
 * argument is ignored, there is one. The variants stay open: their caller closes them (unlike {@link cpuRounds}).
 *
 * Why not {@link cpuRounds}'s long turns on the main thread's clock: `process.threadCpuUsage()` (the kernel's
 * per-thread usage) advances in steps of the scheduler tick, 4 ms on the Linux VMs of the project, a tenth of a turn
 * of 200 sequential calls; and between turns of a few tens of ms the CPU a round trip costs drifts by more than the
 * few per cent the client's own code adds: the client over ky alone read 1.05x to 1.10x from one run of 161 rounds
 * to the next. In turns of one call (sequential) or a few waves of calls (concurrent), drift hits every variant
 * alike; the process's clock is exact to the microsecond; and the median of blocks leaves out the blocks where a
 * garbage collection or a stolen time slice landed on one variant.
 */
export async function interleavedCpu(
  variants: readonly CpuVariant[],
  mode: CpuMode,
  blocks: number,
  blockTurns: number,
): Promise<CpuSamples> {
  const count = variants.length
  const kept: number[][] = []
  for (let block = 0; block <= blocks; block += 1) {
    const sums = new Array<number>(count).fill(0)
    for (let turn = 0; turn < blockTurns; turn += 1) {
      let before = processCpu()
      for (const index of stepOrder(count, block * blockTurns + turn)) {
        const { call } = variants[index]!
        // One sequential call is awaited as it is: a turn of one call costs no worker.
        await (mode.calls === 1 ? call() : runCalls(call, mode.calls, mode.concurrency))
        const after = processCpu()
        sums[index]! += after - before
        before = after
      }
    }
    if (block > 0) kept.push(sums)
  }
  const check = (asked: string): void => {
    if (asked !== mode.label)
      throw new Error(`interleavedCpu: measured "${mode.label}", asked for "${asked}"`)
  }
  const callsPerBlock = blockTurns * mode.calls
  return {
    us: (asked, index) => {
      check(asked)
      return median(kept.map((sums) => sums[index]! / callsPerBlock))
    },
    ratio: (asked, index, base) => {
      check(asked)
      return median(kept.map((sums) => sums[index]! / sums[base]!))
    },
  }
}
