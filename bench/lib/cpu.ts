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

/** CPU of this process (user + system) per call, in microseconds: `calls` calls, `concurrency` at a time. */
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
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / calls
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
  const samples = new Map<string, number[][]>(modes.map((mode) => [mode.label, []]))
  try {
    for (let round = 0; round <= rounds; round += 1) {
      for (const mode of modes) {
        const measured: number[] = new Array(variants.length)
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
  const kept = (mode: string): number[][] => samples.get(mode) ?? []
  return {
    us: (mode, index) => median(kept(mode).map((round) => round[index]!)),
    ratio: (mode, index, base) => median(kept(mode).map((round) => round[index]! / round[base]!)),
  }
}
