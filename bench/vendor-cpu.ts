/**
 * `npm run bench:vendor`: the client's CPU per call against the vendor's SDK, measured as an outside harness does it:
 * the server a minimal portal in its own process answering `profile` and nothing else (bench/children/minimal-portal.ts),
 * the two clients alone in this process, their rounds alternating (ours first in even rounds, the vendor's in odd
 * ones), the ratio taken within each round. Each shape of the answer in bench/lib/answer-shapes.ts is served in turn,
 * and last the emulator process `npm run bench` calls, so that a shape that moves one side's cost shows. Both sides
 * unpaced, adaptive limits off (as in `npm run bench`). `VENDOR_ROUNDS` (default 5), `VENDOR_SEQUENTIAL` (calls per
 * round, default 2000), `VENDOR_CONCURRENT` (default 4000, 32 at a time), `VENDOR_SHAPES` (indexes of the shapes
 * to serve, default every one, `emulator` for the emulator) set the run. Prints a Markdown table.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { forkWorker } from '../scripts/dev/forked-worker.js'
import { fixed, median } from '../scripts/dev/stats.js'
import type { EmulatorAuthParams } from '../src/testing/index.js'
import type { SideInput, SideOrder } from './children/vendor-side.js'
import { ANSWER_SHAPES, type AnswerShape } from './lib/answer-shapes.js'
import {
  CONCURRENCY,
  clientProfileVariant,
  UNPACED_NOT_ADAPTIVE,
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

/** The per-round CPU per call of ours and the vendor's, and their ratio, per mode. */
interface Measured {
  ours: number[]
  vendor: number[]
  ratios: number[]
}

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

/** One warm-up round, then `ROUNDS` rounds alternating which side goes first; ratios within each round. */
async function measure(ours: Side, vendor: Side): Promise<Map<string, Measured>> {
  const measured = new Map<string, Measured>(
    MODES.map((mode) => [mode.label, { ours: [], vendor: [], ratios: [] }]),
  )
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const mode of MODES) {
      const order = round % 2 === 0 ? [ours, vendor] : [vendor, ours]
      const used = new Map<Side, number>()
      for (const side of order) used.set(side, await side.run(mode.calls, mode.concurrency))
      if (round === 0) continue
      const kept = measured.get(mode.label)!
      kept.ours.push(used.get(ours)!)
      kept.vendor.push(used.get(vendor)!)
      kept.ratios.push(used.get(ours)! / used.get(vendor)!)
    }
  }
  return measured
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
const lines = [
  `| server, answer | mode | ours, us | ${VENDOR_PACKAGE} ${VENDOR_VERSION}, us | ours / vendor's, median (range) | load average |`,
  '| --- | --- | ---: | ---: | --- | --- |',
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
    const load = loadavg()[0]!
    const measured = await measure(ours, vendor)
    await ours.close()
    await vendor.close()
    running.stop()
    for (const mode of MODES) {
      const { ours: o, vendor: v, ratios } = measured.get(mode.label)!
      const line = `| ${server.name} | ${mode.label} | ${fixed(median(o))} | ${fixed(median(v))} | ${fixed(median(ratios), 2)}x (${fixed(Math.min(...ratios), 2)} to ${fixed(Math.max(...ratios), 2)}) | ${fixed(load, 1)} to ${fixed(loadavg()[0]!, 1)} |`
      lines.push(line)
      process.stderr.write(`${line}\n`)
    }
  }
} finally {
  await rig.close()
}
console.log(
  `${ROUNDS} alternating rounds (after a warm-up round) of ${MODES[0]!.calls} sequential and ${MODES[1]!.calls} concurrent calls per side, ${FRESH ? 'a fresh process per side and run (loading and warm-up included, no warm-up round kept apart)' : APART ? 'each side in its own process' : 'both sides in one process'}; v2 \`profile\`, both sides unpaced, adaptive limits off; process CPU (user + system).\n`,
)
console.log(lines.join('\n'))
