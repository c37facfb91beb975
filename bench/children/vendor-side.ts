/**
 * Child of `npm run bench:vendor` with `VENDOR_PROCESSES`: one side of the comparison (this client, a baseline build
 * of it, the vendor's SDK or the raw `undici.request` floor) alone in its own process, so that the garbage one side
 * leaves is collected on its own clock and not in the other side's turn. With `run` in its input, a fresh process per
 * run: it loads the side's package, makes the calls and answers the CPU per call from before the package was loaded
 * (loading and the JIT's warm-up included), then exits. Without it, driven over IPC: each order runs `calls` `profile` calls, `concurrency` at a time, and answers
 * the process's CPU per call (user + system, us).
 */
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import type { CpuVariant } from '../lib/cpu.js'

/** Taken before the side's package loads (the imports above are types only). */
const started = process.cpuUsage()

/** What the parent hands the child, as JSON in `argv[2]`. */
export interface SideInput {
  side: 'ours' | 'vendor' | 'floor'
  /** For `ours`: the `dist/` directory of the build to load; this checkout's by default. */
  dist?: string
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  /** A fresh process for one run of calls: loading the package counts. */
  run?: { calls: number; concurrency: number }
}

/** An order: a run of calls, or the end. */
export type SideOrder = { type: 'run'; calls: number; concurrency: number } | { type: 'exit' }

const input = JSON.parse(process.argv[2] ?? '{}') as SideInput
const { cpuPerCall } = await import('../lib/cpu.js')

/** Unpaced, adaptive limits off: the restriction params of both sides (see bench/lib/call-variants.ts). */
function unpacedNotAdaptive(defaults: { adaptiveConfig: object }): object {
  return {
    rateLimit: { burstLimit: 1_000_000, drainRate: 1_000_000 },
    adaptiveConfig: { ...defaults.adaptiveConfig, enabled: false },
  }
}

/** The side's `profile` call, loading only its own package (a build of this one, the vendor's SDK, or undici). */
async function sideVariant(): Promise<CpuVariant> {
  const fail = (messages: string[]): never => {
    throw new Error(`${input.side}: ${messages.join('; ')}`)
  }
  if (input.side === 'floor') {
    const { rawPostVariant } = await import('../lib/raw-floor.js')
    return rawPostVariant(
      `${input.pair.clientEndpoint}profile`,
      JSON.stringify({ auth: input.pair.accessToken }),
    )
  }
  if (input.side === 'vendor') {
    const { loadVendorSdk } = await import('../lib/vendor.js')
    const sdk = await loadVendorSdk()
    const defaults = (sdk as unknown as { ParamsFactory: { getDefault(): { adaptiveConfig: object } } })
      .ParamsFactory
    const client = new sdk.B24OAuth(input.pair, input.secret, {
      restrictionParams: unpacedNotAdaptive(defaults.getDefault()),
    })
    client.setLogger(sdk.LoggerFactory.createNullLogger())
    client.offClientSideWarning()
    return {
      name: 'vendor',
      call: async () => {
        const result = await client.actions.v2.call.make({ method: 'profile', params: {} })
        if (!result.isSuccess) fail(result.getErrorMessages())
      },
      close: async () => client.destroy(),
    }
  }
  const dist = input.dist ?? fileURLToPath(new URL('../../dist/', import.meta.url))
  const lib = (await import(
    pathToFileURL(join(dist, 'src/index.js')).href
  )) as typeof import('../../src/index.js')
  const portal = new lib.PortalOAuth(input.pair, input.secret, {
    logger: lib.createNullLogger(),
    restrictionParams: unpacedNotAdaptive(lib.ParamsFactory.getDefault()),
  })
  return {
    name: 'ours',
    call: async () => {
      const result = await portal.actions.v2.call.make({ method: 'profile' })
      if (!result.isSuccess) fail(result.getErrorMessages())
    },
    close: () => portal.destroy(),
  }
}
const variant = await sideVariant()

if (input.run) {
  await cpuPerCall(variant.call, input.run.calls, input.run.concurrency)
  const used = process.cpuUsage(started)
  await variant.close()
  process.send?.({ us: (used.user + used.system) / input.run.calls }, () => process.exit(0))
} else {
  process.on('message', async (order: SideOrder) => {
    if (order.type === 'exit') {
      await variant.close()
      process.exit(0)
    }
    const used = await cpuPerCall(variant.call, order.calls, order.concurrency)
    process.send?.({ us: used.process })
  })
}
