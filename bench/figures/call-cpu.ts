import ky1 from 'ky1'
import { bytes, fixed, median } from '../../scripts/dev/stats.js'
import { allocatedPerCall } from '../lib/allocation.js'
import {
  CONCURRENCY,
  clientProfileVariant,
  clientVariant,
  kyVariant,
  kyVersion,
  METHOD,
  PARAMS,
  rawVariant,
  UNPACED_NOT_ADAPTIVE,
  VENDOR_METHOD,
  vendorVariant,
} from '../lib/call-variants.js'
import { type CpuSamples, type CpuVariant, cpuRounds, interleavedCpu } from '../lib/cpu.js'
import type { FigureResult } from '../lib/figure.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'
import { loadVendorSdk, VENDOR_PACKAGE, VENDOR_VERSION } from '../lib/vendor.js'

/** The bar: client CPU per call at most this many times the raw `undici.request` floor. */
const MAX_RATIO = 3
/** The bar of the client's own code: CPU per call at most this many times ky alone over the same adapter. */
const MAX_OVER_KY = 1.1
/**
 * The bars of the client's own cost (over the raw floor, over ky alone) are measured on the client, ky alone and the
 * floor apart from the other variants, interleaved turn by turn (see interleavedCpu): sequentially in turns of one
 * call, blocks of 50; at 32 concurrent in turns of 256 calls (8 waves), blocks of one. ky 2 over ky 1 likewise, on
 * the two alone, half as many blocks. Long turns of one variant at a time read the client over ky alone at 1.05x to
 * 1.10x from one run to the next sequentially, 1.00x to 1.09x at 32 concurrent, and ky 2 over ky 1 at 0.84x to 1.18x.
 */
const OWN_COST = {
  sequential: { calls: 1, blocks: 480, blockTurns: 50 },
  concurrent: { calls: 256, blocks: 300, blockTurns: 1 },
}
/** Sequential calls per turn of the heap allocated per call, and turns per variant (their median is kept). */
const ALLOCATION_CALLS = 2_000
const ALLOCATION_TURNS = 3
/** The side channels stay only while they save at least this share of the CPU per call. */
const MIN_SIDE_CHANNEL_SAVING = 0.15
/** The bars against the vendor's SDK: client CPU per call at most this share of the vendor's, per mode. */
const VENDOR_BARS: Record<string, number> = { sequential: 0.55, [`${CONCURRENCY} concurrent`]: 0.4 }

/**
 * Client CPU per `call.make`, sequential and at 32 concurrent calls, against a raw `undici.request` POST of the same
 * body to the same emulator. Variants alternate within each round and the ratios are taken within each round, so
 * that a noisy neighbour hurts every variant of a ratio alike; the medians of the rounds are kept.
 */
export async function callCpuFigure(
  rig: BenchRig,
  options: { rounds: number; sequentialCalls: number; concurrentCalls: number },
): Promise<FigureResult> {
  const variants: CpuVariant[] = [
    rawVariant(await rig.pair()),
    clientVariant('call.make, default adapter', await rig.client({ restrictionParams: UNPACED })),
    kyVariant(await rig.pair()),
    clientVariant(
      'call.make, adapter: global fetch',
      await rig.client({ restrictionParams: UNPACED, httpOptions: { adapter: fetch } }),
    ),
    kyVariant(await rig.pair(), false),
    // The ky row's request shape through ky 1: ky 1 hands unknown options to fetch as ky 2 does.
    kyVariant(
      await rig.pair(),
      true,
      ky1,
      `the ky row through ky ${kyVersion('ky1')} (ky 2 is ${kyVersion('ky')})`,
    ),
  ]
  // A dev dependency pinned exactly; BENCH_VENDOR=0 leaves it out.
  const vendor = process.env.BENCH_VENDOR === '0' ? null : await loadVendorSdk()
  // Ours and the vendor's making the same `profile` call, adaptive limits off on both sides.
  const oursIndex = vendor
    ? variants.push(clientProfileVariant(await rig.client({ restrictionParams: UNPACED_NOT_ADAPTIVE }))) - 1
    : -1
  const vendorIndex = vendor ? variants.push(await vendorVariant(rig, vendor)) - 1 : -1
  const modes = [
    { label: 'sequential', calls: options.sequentialCalls, concurrency: 1 },
    { label: `${CONCURRENCY} concurrent`, calls: options.concurrentCalls, concurrency: CONCURRENCY },
  ]
  // The client, ky alone and the floor first, measured apart (see OWN_COST); the rounds of them all close them.
  const trio = [variants[1]!, variants[2]!, variants[0]!]
  const kyPair = [variants[2]!, variants[5]!]
  // Per mode: the client (0), ky alone (1) and the floor (2); then ky alone (0) and through ky 1 (1), apart from
  // them, where ky 1's code, run between the client's calls, would cost the client a few per cent more.
  const own = new Map<string, CpuSamples>()
  const kyVersions = new Map<string, CpuSamples>()
  for (const [mode, run] of [
    [modes[0]!, OWN_COST.sequential],
    [modes[1]!, OWN_COST.concurrent],
  ] as const) {
    const turns = { ...mode, calls: run.calls }
    own.set(mode.label, await interleavedCpu(trio, turns, run.blocks, run.blockTurns))
    kyVersions.set(mode.label, await interleavedCpu(kyPair, turns, run.blocks / 2, run.blockTurns))
  }
  const ownCost = (mode: string): CpuSamples => own.get(mode)!
  // The raw floor, the client and ky alone (variants 0 to 2), before cpuRounds closes them.
  const [rawBytes, clientBytes, kyBytes] = await allocations(variants.slice(0, 3))
  const samples = await cpuRounds(variants, modes, options.rounds)
  const us = samples.us
  const ratio = (mode: string, index: number): number => samples.ratio(mode, index, 0)
  const rows = []
  const details = [
    '| client CPU per call (medians of rounds) | sequential | ratio | main thread | 32 concurrent | ratio | main thread |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  variants.forEach((variant, index) => {
    const cells = modes.map(
      (mode) =>
        `${fixed(us(mode.label, index))} us | ${fixed(ratio(mode.label, index), 2)}x | ${fixed(us(mode.label, index, 'main'))} us`,
    )
    details.push(`| ${variant.name} | ${cells.join(' | ')} |`)
  })
  for (const mode of modes) {
    const cost = ownCost(mode.label)
    const floor = cost.us(mode.label, 2)
    const client = cost.us(mode.label, 0)
    const clientRatio = cost.ratio(mode.label, 0, 2)
    rows.push({
      figure: `client CPU per call.make, ${mode.label}`,
      measured: `${fixed(client)} us, ${fixed(clientRatio, 2)}x raw (${fixed(floor)} us)`,
      bar: `<= ${MAX_RATIO}x raw`,
      pass: clientRatio <= MAX_RATIO,
      loadSensitive: true,
    })
  }
  for (const mode of modes) {
    // The client's own code over ky's: ky alone over the same adapter with the same options (see OWN_COST).
    const cost = ownCost(mode.label)
    const overKy = cost.ratio(mode.label, 0, 1)
    rows.push({
      figure: `client CPU per call.make over ky alone, ${mode.label}`,
      measured: `${fixed(overKy, 2)}x ky (${fixed(cost.us(mode.label, 0))} vs ${fixed(cost.us(mode.label, 1))} us)`,
      bar: `<= ${MAX_OVER_KY}x`,
      pass: overKy <= MAX_OVER_KY,
      loadSensitive: true,
    })
  }
  for (const mode of modes) {
    // What the adapter's side channels (the body beside ky's Request, the answer text beside its Response) save.
    const saved = 1 - samples.ratio(mode.label, 2, 4)
    rows.push({
      figure: `CPU per call the adapter's side channels save under ky, ${mode.label}`,
      measured: `${fixed(saved * 100)} % (${fixed(us(mode.label, 2))} vs ${fixed(us(mode.label, 4))} us)`,
      bar: `>= ${MIN_SIDE_CHANNEL_SAVING * 100} % to keep them`,
      pass: saved >= MIN_SIDE_CHANNEL_SAVING,
      loadSensitive: true,
    })
  }
  for (const mode of modes) {
    // What ky 2 costs per call over ky 1, the same request shape over the same adapter (see OWN_COST).
    const cost = kyVersions.get(mode.label)!
    const overKy1 = cost.ratio(mode.label, 0, 1)
    rows.push({
      figure: `CPU per call of ky 2 over ky 1 alone, ${mode.label}`,
      measured: `${fixed(overKy1, 2)}x ky 1 (${fixed(cost.us(mode.label, 0))} vs ${fixed(cost.us(mode.label, 1))} us)`,
      bar: 'measured, no bar',
      pass: true,
    })
  }
  rows.push({
    figure: 'heap allocated per call.make, sequential',
    measured: `${bytes(clientBytes!)} (ky alone ${bytes(kyBytes!)}, raw floor ${bytes(rawBytes!)})`,
    bar: 'measured, no bar',
    pass: true,
  })
  if (vendorIndex >= 0) {
    for (const mode of modes) {
      // Ours over the vendor's within each round, then the median of the rounds (see cpuRounds).
      const share = samples.ratio(mode.label, oursIndex, vendorIndex)
      const bar = VENDOR_BARS[mode.label] ?? 1
      rows.push({
        figure: `client CPU per call.make vs ${VENDOR_PACKAGE}, ${VENDOR_METHOD}, adaptive limits off, ${mode.label}`,
        measured: `${fixed(share, 2)}x the vendor's (${fixed(us(mode.label, oursIndex))} vs ${fixed(us(mode.label, vendorIndex))} us)`,
        bar: `<= ${bar}x`,
        pass: share <= bar,
        loadSensitive: true,
      })
    }
  }
  details.push(
    '',
    `${options.rounds} rounds (after one warm-up round) of ${options.sequentialCalls} sequential and ${options.concurrentCalls} concurrent calls per variant; the ratio is the median of the ratios within each round. CPU is the process's (\`process.cpuUsage()\`), and the main thread's (\`process.threadCpuUsage()\`) beside it. The rows of the client over the raw floor and over ky alone are measured on the three apart, interleaved turn by turn on the process's clock: sequential calls one by one, the median of ${OWN_COST.sequential.blocks} blocks of ${OWN_COST.sequential.blockTurns} calls of each; concurrent calls in turns of ${OWN_COST.concurrent.calls}, the median of ${OWN_COST.concurrent.blocks} turns of each. The rows of ky 2 over ky 1 likewise on the two, half as many blocks. The table of every variant is from the rounds of them all. v2 \`${METHOD}\` with \`${JSON.stringify(PARAMS)}\`. The ky row is ky alone over the default adapter, with the options the client gives it: the part of the client's cost that is ky's and the adapter's.${vendorIndex >= 0 ? ` The ${VENDOR_PACKAGE} row is the vendor's SDK ${VENDOR_VERSION} (a dev dependency pinned exactly) making v2 \`${VENDOR_METHOD}\` against the same emulator process, compared with the row above it: the same call through this client, both limiters unpaced and both with their adaptive limits off.` : ''}`,
    '',
    `Heap allocated per call: ${ALLOCATION_CALLS} sequential calls each of the raw floor, the client and ky alone in turn, the median of ${ALLOCATION_TURNS} turns after a warm-up turn; read from the used heap before and after every collection V8 ran meanwhile (\`v8.GCProfiler\`), so the garbage collected counts. It is the source of the GC share of the CPU, and other work on the machine does not move it.`,
  )
  return { rows, details }
}

/**
 * Heap allocated per sequential call of each variant (see {@link allocatedPerCall}): after a warm-up turn, the median
 * of {@link ALLOCATION_TURNS} turns, the variants taking them in turn.
 */
async function allocations(variants: readonly CpuVariant[]): Promise<number[]> {
  const turns = variants.map((): number[] => [])
  for (let turn = 0; turn <= ALLOCATION_TURNS; turn += 1) {
    for (const [index, variant] of variants.entries()) {
      const allocated = await allocatedPerCall(variant.call, ALLOCATION_CALLS)
      if (turn > 0) turns[index]!.push(allocated)
    }
  }
  return turns.map(median)
}
