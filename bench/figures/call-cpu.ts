import ky1 from 'ky1'
import { allocatedPerCall } from '../lib/allocation.js'
import {
  CONCURRENCY,
  clientVariant,
  kyVariant,
  kyVersion,
  METHOD,
  PARAMS,
  rawVariant,
  vendorVariant,
} from '../lib/call-variants.js'
import { type CpuSamples, type CpuVariant, cpuRounds } from '../lib/cpu.js'
import type { FigureResult } from '../lib/figure.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'
import { bytes, fixed, median } from '../lib/stats.js'
import { loadVendorSdk, VENDOR_PACKAGE, VENDOR_VERSION } from '../lib/vendor.js'

/** The bar: client CPU per call at most this many times the raw `undici.request` floor. */
const MAX_RATIO = 3
/** The bar of the client's own code: CPU per call at most this many times ky alone over the same adapter. */
const MAX_OVER_KY = 1.1
/**
 * The rounds of the bars of the client's own cost (over the raw floor, over ky alone): the client, ky alone and the
 * floor side by side, in rounds of their own, sequential calls in short turns and many of them. A sequential turn is
 * a run of round trips to the emulator process, and on a VM the CPU of the wake-ups around each one is noisy: the
 * client over ky alone read 0.44x to 2.28x from one turn of 400 calls to the next (main thread, an unloaded 2-core
 * VM), so the median of 41 such ratios moved by more than a bar's margin between runs. The median of 160 turns of
 * 200 calls read 1.06x in both of two runs (with the floor beside them, 1.05x to 1.10x in seven runs). Concurrent
 * turns are steadier and keep the figure's length.
 */
const OWN_COST_SEQUENTIAL = { calls: 200, rounds: 161 }
const OWN_COST_CONCURRENT_ROUNDS = 41
/** Sequential calls per turn of the heap allocated per call, and turns per variant (their median is kept). */
const ALLOCATION_CALLS = 2_000
const ALLOCATION_TURNS = 3
/** The side channels stay only while they save at least this share of the CPU per call. */
const MIN_SIDE_CHANNEL_SAVING = 0.15
/** The bars against the vendor's SDK: client CPU per call at most this share of the vendor's, per mode. */
const VENDOR_BARS: Record<string, number> = { sequential: 0.6, [`${CONCURRENCY} concurrent`]: 0.5 }

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
  const vendorIndex = vendor ? variants.push(await vendorVariant(rig, vendor)) - 1 : -1
  const modes = [
    { label: 'sequential', calls: options.sequentialCalls, concurrency: 1 },
    { label: `${CONCURRENCY} concurrent`, calls: options.concurrentCalls, concurrency: CONCURRENCY },
  ]
  // The client, ky alone and the floor first, side by side in rounds of their own (see OWN_COST_SEQUENTIAL). The
  // variants stay open for the rounds of all of them.
  const kept = (variant: CpuVariant): CpuVariant => ({ ...variant, close: async () => {} })
  const trio = [kept(variants[1]!), kept(variants[2]!), kept(variants[0]!)]
  const ownRuns = [
    { mode: { ...modes[0]!, calls: OWN_COST_SEQUENTIAL.calls }, rounds: OWN_COST_SEQUENTIAL.rounds },
    { mode: modes[1]!, rounds: OWN_COST_CONCURRENT_ROUNDS },
  ]
  // Per mode: variant 0 the client, 1 ky alone, 2 the floor.
  const own = new Map<string, CpuSamples>()
  for (const { mode, rounds } of ownRuns) own.set(mode.label, await cpuRounds(trio, [mode], rounds))
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
    // The client's own code over ky's: ky alone over the same adapter with the same options, on the main thread's
    // CPU (see CpuClock).
    const cost = ownCost(mode.label)
    const overKy = cost.ratio(mode.label, 0, 1, 'main')
    rows.push({
      figure: `client CPU per call.make over ky alone, ${mode.label}`,
      measured: `${fixed(overKy, 2)}x ky (main thread: ${fixed(cost.us(mode.label, 0, 'main'))} vs ${fixed(cost.us(mode.label, 1, 'main'))} us)`,
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
    // What ky 2 costs per call over ky 1, the same request shape over the same adapter (variants 2 and 5).
    const overKy1 = samples.ratio(mode.label, 2, 5, 'main')
    rows.push({
      figure: `CPU per call of ky 2 over ky 1 alone, ${mode.label}`,
      measured: `${fixed(overKy1, 2)}x ky 1 (main thread: ${fixed(us(mode.label, 2, 'main'))} vs ${fixed(us(mode.label, 5, 'main'))} us)`,
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
      const share = samples.ratio(mode.label, 1, vendorIndex)
      const bar = VENDOR_BARS[mode.label] ?? 1
      rows.push({
        figure: `client CPU per call.make vs ${VENDOR_PACKAGE}, ${mode.label}`,
        measured: `${fixed(share, 2)}x the vendor's (${fixed(us(mode.label, 1))} vs ${fixed(us(mode.label, vendorIndex))} us)`,
        bar: `<= ${bar}x`,
        pass: share <= bar,
        loadSensitive: true,
      })
    }
  }
  details.push(
    '',
    `${options.rounds} rounds (after one warm-up round) of ${options.sequentialCalls} sequential and ${options.concurrentCalls} concurrent calls per variant; the ratio is the median of the ratios within each round. CPU is the process's (\`process.cpuUsage()\`); the rows over ky alone and of ky 2 over ky 1 read the main thread's (\`process.threadCpuUsage()\`), where V8's helper threads do not blur a difference of a few per cent. The rows of the client over the raw floor and over ky alone come from rounds of their own, the three side by side: ${OWN_COST_SEQUENTIAL.rounds} of ${OWN_COST_SEQUENTIAL.calls} sequential calls each, ${OWN_COST_CONCURRENT_ROUNDS} of ${options.concurrentCalls} concurrent calls; the table of every variant is from the rounds of them all. v2 \`${METHOD}\` with \`${JSON.stringify(PARAMS)}\`. The ky row is ky alone over the default adapter, with the options the client gives it: the part of the client's cost that is ky's and the adapter's.${vendorIndex >= 0 ? ` The ${VENDOR_PACKAGE} row is the vendor's SDK ${VENDOR_VERSION} (a dev dependency pinned exactly), its limiter unpaced like ours, against the same emulator process.` : ''}`,
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
