/**
 * `npm run bench:vendor`: the client's CPU per call against the vendor's SDK, measured as an outside harness does it:
 * the server a minimal portal in its own process answering `profile` and nothing else (bench/children/minimal-portal.ts),
 * the two clients and the raw `undici.request` floor alone in this process, their turns rotating from round to round,
 * the ratios taken within each round. Each shape of the answer in bench/lib/answer-shapes.ts is served in turn, and
 * last the emulator process `npm run bench` calls, so that a shape that moves one side's cost shows. Both clients
 * unpaced, adaptive limits off (as in `npm run bench`). `VENDOR_ROUNDS` (default 5), `VENDOR_SEQUENTIAL` (calls per
 * round, default 2000), `VENDOR_CONCURRENT` (default 4000, 32 at a time), `VENDOR_SHAPES` (indexes of the shapes
 * to serve, default every one, `emulator` for the emulator) set the run; `VENDOR_BASELINE`, the `dist/` directory of
 * another build of the client, adds it as a side, so that a change is measured against it in the same rounds.
 * Prints a Markdown table.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { forkWorker } from '../scripts/dev/forked-worker.js'
import { fixed, median } from '../scripts/dev/stats.js'
import type { EmulatorAuthParams } from '../src/testing/index.js'
import type { SideInput, SideOrder } from './children/vendor-side.js'
import { ANSWER_SHAPES, type AnswerShape } from './lib/answer-shapes.js'
import {
  CONCURRENCY,
  clientProfileVariant,
  rawVariant,
  UNPACED_NOT_ADAPTIVE,
  VENDOR_METHOD,
  vendorPairVariant,
} from './lib/call-variants.js'
import { type CpuVariant, cpuPerCall } from './lib/cpu.js'
import { lib } from './lib/package.js'
import { startBenchRig } from './lib/rig.js'
import { loadVendorSdk, VENDOR_PACKAGE, VENDOR_VERSION } from './lib/vendor.js'

const ROUNDS = Number(process.env.VENDOR_ROUNDS ?? 5)
const MODES = [
  { label: 'sequential', calls: Number(process.env.VENDOR_SEQUENTIAL ?? 2_000), concurrency: 1 },
  {
    label: `${CONCURRENCY} concurrent`,
    calls: Number(process.env.VENDOR_CONCURRENT ?? 4_000),
    concurrency: CONCURRENCY,
  },
]
const PORTAL = fileURLToPath(new URL('children/minimal-portal.ts', import.meta.url))
const SIDE = fileURLToPath(new URL('children/vendor-side.ts', import.meta.url))
/**
 * `VENDOR_PROCESSES=1`: each side in its own process (bench/children/vendor-side.ts), not both in this one;
 * `VENDOR_PROCESSES=fresh`: a fresh process per side and run, loading its package included.
 */
const APART = process.env.VENDOR_PROCESSES === '1' || process.env.VENDOR_PROCESSES === 'fresh'
const FRESH = process.env.VENDOR_PROCESSES === 'fresh'
/** `VENDOR_BASELINE`: the `dist/` directory of a build to compare this one with (see bench/children/vendor-side.ts). */
const BASELINE = process.env.VENDOR_BASELINE ? resolve(process.env.VENDOR_BASELINE) : undefined

/** A minimal portal serving `shape`, in its own process; its endpoint and a way to stop it. */
async function startMinimalPortal(shape: AnswerShape): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', PORTAL, JSON.stringify(shape)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.stdout
      .setEncoding('utf8')
      .once('data', (line: string) => resolve((JSON.parse(line) as { port: number }).port))
  })
  return { port, stop: () => child.stdin.end() }
}

/** `pair` pointed at the minimal portal on `port`. */
function pairAt(pair: EmulatorAuthParams, port: number): EmulatorAuthParams {
  return { ...pair, domain: `127.0.0.1:${port}`, clientEndpoint: `http://127.0.0.1:${port}/rest/` }
}

/** The sides measured, by name: ours, the vendor's, the floor, and the baseline build when one is given. */
type SideName = 'ours' | 'vendor' | 'floor' | 'baseline'

/** Per mode, each side's CPU per call in each round, us (the rounds in order, so ratios are taken within one). */
type Measured = Map<string, Map<SideName, number[]>>

/** One side of the comparison: runs calls and says their CPU per call, us. */
interface Side {
  run(calls: number, concurrency: number): Promise<number>
  close(): Promise<void>
}

/** A side in this process. */
function sideHere(variant: CpuVariant): Side {
  return {
    run: async (calls, concurrency) => (await cpuPerCall(variant.call, calls, concurrency)).process,
    close: () => variant.close(),
  }
}

/** A fresh process per run (bench/children/vendor-side.ts with `run`): loading the package and the warm-up count. */
function sideFresh(input: SideInput): Side {
  return {
    run: async (calls, concurrency) => {
      const worker = forkWorker<SideOrder, { us: number }>(SIDE, { ...input, run: { calls, concurrency } })
      const { us } = await worker.next()
      await worker.stop({ type: 'exit' })
      return us
    },
    close: async () => {},
  }
}

/** A side in its own process (bench/children/vendor-side.ts). */
function sideApart(input: SideInput): Side {
  if (FRESH) return sideFresh(input)
  const worker = forkWorker<SideOrder, { us: number }>(SIDE, input)
  return {
    run: async (calls, concurrency) => {
      worker.send({ type: 'run', calls, concurrency })
      return (await worker.next()).us
    },
    close: () => worker.stop({ type: 'exit' }),
  }
}

/**
 * One warm-up round, then `ROUNDS` rounds; the order of the sides rotates by one each round and is reversed every
 * other round, so that no side always runs first or after the same one.
 */
async function measure(sides: ReadonlyMap<SideName, Side>): Promise<Measured> {
  const names = [...sides.keys()]
  const measured: Measured = new Map(
    MODES.map((mode) => [mode.label, new Map(names.map((name) => [name, []]))]),
  )
  for (let round = 0; round <= ROUNDS; round += 1) {
    const rotated = names.map((_, index) => names[(index + round) % names.length]!)
    const order = round % 2 === 0 ? rotated : rotated.reverse()
    for (const mode of MODES) {
      const used = new Map<SideName, number>()
      for (const name of order) used.set(name, await sides.get(name)!.run(mode.calls, mode.concurrency))
      if (round === 0) continue
      for (const name of names) measured.get(mode.label)!.get(name)!.push(used.get(name)!)
    }
  }
  return measured
}

/** The median of `a / b` within each round, and its range. */
function ratioCell(a: readonly number[], b: readonly number[]): string {
  const ratios = a.map((value, round) => value / b[round]!)
  return `${fixed(median(ratios), 2)}x (${fixed(Math.min(...ratios), 2)} to ${fixed(Math.max(...ratios), 2)})`
}

/** A build of the client in this process: the `dist/` directory given, loaded on its own. */
async function buildVariant(
  dist: string,
  pair: EmulatorAuthParams,
  secret: { clientId: string; clientSecret: string },
): Promise<Side> {
  const build = (await import(pathToFileURL(join(dist, 'src/index.js')).href)) as typeof lib
  return sideHere(
    clientProfileVariant(
      new build.PortalOAuth(pair, secret, {
        logger: build.createNullLogger(),
        restrictionParams: UNPACED_NOT_ADAPTIVE,
      }),
    ),
  )
}

const rig = await startBenchRig()
const secret = { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret }
const only = process.env.VENDOR_SHAPES?.split(',')
const servers: Array<{
  name: string
  start: () => Promise<{ pair: (p: EmulatorAuthParams) => EmulatorAuthParams; stop: () => void }>
}> = [
  ...ANSWER_SHAPES.map((shape, index) => ({ shape, index }))
    .filter(({ index }) => !only || only.includes(String(index)))
    .map(({ shape }) => ({
      name: `minimal portal, ${shape.name}`,
      start: async () => {
        const portal = await startMinimalPortal(shape)
        return { pair: (pair: EmulatorAuthParams) => pairAt(pair, portal.port), stop: portal.stop }
      },
    })),
  ...(!only || only.includes('emulator')
    ? [
        {
          name: "the emulator process (`npm run bench`'s)",
          start: async () => ({ pair: (p: EmulatorAuthParams) => p, stop: () => {} }),
        },
      ]
    : []),
]
const baselineColumns = BASELINE ? " baseline / vendor's | ours / baseline |" : ''
const lines = [
  `| server, answer | mode | ours, us | ${VENDOR_PACKAGE} ${VENDOR_VERSION}, us | floor, us | ours / vendor's, median (range) | floor / vendor's | ours / floor |${baselineColumns} load average |`,
  `| --- | --- | ---: | ---: | ---: | --- | --- | --- |${BASELINE ? ' --- | --- |' : ''} --- |`,
]
try {
  for (const server of servers) {
    const running = await server.start()
    const ourPair = running.pair(await rig.pair())
    const vendorPair = running.pair(await rig.pair())
    const ours = APART
      ? sideApart({ side: 'ours', pair: ourPair, secret })
      : sideHere(
          clientProfileVariant(
            new lib.PortalOAuth(ourPair, secret, {
              logger: lib.createNullLogger(),
              restrictionParams: UNPACED_NOT_ADAPTIVE,
            }),
          ),
        )
    const vendor = APART
      ? sideApart({ side: 'vendor', pair: vendorPair, secret })
      : sideHere(vendorPairVariant(vendorPair, secret, await loadVendorSdk()))
    const floorPair = running.pair(await rig.pair())
    const floor = APART
      ? sideApart({ side: 'floor', pair: floorPair, secret })
      : sideHere(rawVariant(floorPair, VENDOR_METHOD, {}))
    const sides = new Map<SideName, Side>([
      ['ours', ours],
      ['vendor', vendor],
      ['floor', floor],
    ])
    if (BASELINE) {
      const basePair = running.pair(await rig.pair())
      sides.set(
        'baseline',
        APART
          ? sideApart({ side: 'ours', dist: BASELINE, pair: basePair, secret })
          : await buildVariant(BASELINE, basePair, secret),
      )
    }
    const load = loadavg()[0]!
    const measured = await measure(sides)
    for (const side of sides.values()) await side.close()
    running.stop()
    for (const mode of MODES) {
      const us = measured.get(mode.label)!
      const o = us.get('ours')!
      const v = us.get('vendor')!
      const f = us.get('floor')!
      const b = us.get('baseline')
      const baselineCells = b ? ` ${ratioCell(b, v)} | ${ratioCell(o, b)} |` : ''
      const line = `| ${server.name} | ${mode.label} | ${fixed(median(o))} | ${fixed(median(v))} | ${fixed(median(f))} | ${ratioCell(o, v)} | ${ratioCell(f, v)} | ${ratioCell(o, f)} |${baselineCells} ${fixed(load, 1)} to ${fixed(loadavg()[0]!, 1)} |`
      lines.push(line)
      process.stderr.write(`${line}\n`)
    }
  }
} finally {
  await rig.close()
}
console.log(
  `${ROUNDS} rounds (after a warm-up round), the order of the sides rotating, of ${MODES[0]!.calls} sequential and ${MODES[1]!.calls} concurrent calls per side${BASELINE ? ` (baseline: ${BASELINE})` : ''}, ${FRESH ? 'a fresh process per side and run (loading and warm-up included, no warm-up round kept apart)' : APART ? 'each side in its own process' : 'both sides in one process'}; v2 \`profile\`, both sides unpaced, adaptive limits off; process CPU (user + system).\n`,
)
console.log(lines.join('\n'))
