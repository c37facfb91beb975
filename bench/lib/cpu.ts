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

/** CPU per call of every variant in every kept round, with the medians the figures print. */
export interface CpuSamples {
  /** Median over the rounds of the CPU per call of variant `index`, us. */
  us(mode: string, index: number): number
  /** Median over the rounds of variant `index`'s CPU per call divided by variant `base`'s in the same round. */
  ratio(mode: string, index: number, base: number): number
}

/**
 * CPU of the main thread (user + system), us. V8's compiler and garbage-collector helper threads run beside it and
 * their time lands in whichever window happens to be open: with the whole process's CPU, the client measured against
 * itself read 0.59x to 2.2x across rounds (quartiles 0.69x and 1.24x); on the main thread, 0.78x to 1.34x (0.98x and
 * 1.18x). The whole process's where `process.threadCpuUsage()` is missing (early Node 22 releases).
 */
const mainThreadCpu: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage =
  typeof process.threadCpuUsage === 'function'
    ? (previous) => process.threadCpuUsage(previous)
    : (previous) => process.cpuUsage(previous)

/** Main-thread CPU (user + system) per call, in microseconds: `calls` calls, `concurrency` at a time. */
export async function cpuPerCall(
  call: () => Promise<void>,
  calls: number,
  concurrency: number,
): Promise<number> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1
      await call()
    }
  }
  const before = mainThreadCpu()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = mainThreadCpu(before)
  return (used.user + used.system) / calls
}

/** Slices a round's calls of each variant are cut into, interleaved with the other variants' slices. */
const SLICES = 4

/**
 * Measures every variant in every mode, `rounds` times after one warm-up round (JIT, connection pools, the
 * emulator's caches) that is not kept, then closes the variants. Within a round each variant's calls run in
 * {@link SLICES} slices interleaved with the others', in an order that rotates, so that no variant always runs
 * right after the same neighbour and a drift within the round (the JIT, a neighbour's load) falls on every variant
 * alike; ratios are taken within a round, where the variants ran side by side.
 */
export async function cpuRounds(
  variants: readonly CpuVariant[],
  modes: readonly CpuMode[],
  rounds: number,
): Promise<CpuSamples> {
  const samples = new Map<string, number[][]>(modes.map((mode) => [mode.label, []]))
  try {
    for (let round = 0; round <= rounds; round += 1) {
      for (const mode of modes) {
        const measured: number[] = new Array(variants.length).fill(0)
        const calls = Math.ceil(mode.calls / SLICES)
        for (let slice = 0; slice < SLICES; slice += 1) {
          for (let step = 0; step < variants.length; step += 1) {
            const index = (step + round + slice) % variants.length
            measured[index]! += (await cpuPerCall(variants[index]!.call, calls, mode.concurrency)) / SLICES
          }
        }
        if (round > 0) samples.get(mode.label)!.push(measured)
      }
    }
  } finally {
    await Promise.all(variants.map((variant) => variant.close()))
  }
  const kept = (mode: string): number[][] => samples.get(mode) ?? []
  return {
    us: (mode, index) => median(kept(mode).map((round) => round[index]!)),
    ratio: (mode, index, base) => median(kept(mode).map((round) => round[index]! / round[base]!)),
  }
}
