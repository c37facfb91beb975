import { median } from './stats.js'

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
const mainThreadCpu: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage =
  typeof process.threadCpuUsage === 'function'
    ? (previous) => process.threadCpuUsage(previous)
    : (previous) => process.cpuUsage(previous)

/** CPU (user + system) per call on both clocks, in microseconds: `calls` calls, `concurrency` at a time. */
export async function cpuPerCall(
  call: () => Promise<void>,
  calls: number,
  concurrency: number,
): Promise<CpuPerCall> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1
      await call()
    }
  }
  const before = process.cpuUsage()
  const beforeMain = mainThreadCpu()
  await Promise.all(Array.from({ length: concurrency }, worker))
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
