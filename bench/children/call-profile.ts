/**
 * Child of `npm run bench:profile`: v2 `crm.item.get` calls through `call.make` on the built package against an
 * emulator in another process (started by the parent, so that its CPU is not in this profile), `concurrency` at a
 * time, after a warm-up. Run under `node --cpu-prof`; the profile covers the warm-up too, so the child prints the
 * windows in which the measured calls ran, and the parent keeps only the samples taken in them. With `kyPair`, the
 * client's calls alternate with ky alone's (the CPU figure's ky row, on a pair of its own) in windows of
 * {@link WINDOW_CALLS} calls, so that both are profiled in one process, side by side.
 */

import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { clientVariant, kyVariant } from '../lib/call-variants.js'
import type { CpuVariant } from '../lib/cpu.js'
import { lib } from '../lib/package.js'
import { UNPACED } from '../lib/rig.js'

interface Input {
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  calls: number
  concurrency: number
  kyPair?: EmulatorAuthParams
}

/** One stretch of measured calls: the monotonic clock in us (the clock of the V8 profile's timestamps). */
export interface ProfileWindow {
  variant: 'client' | 'ky'
  from: number
  to: number
  cpuUs: number
  calls: number
}

/** Calls per window when the client alternates with ky alone. */
const WINDOW_CALLS = 200

const input = JSON.parse(process.argv[2] ?? '{}') as Input
const client = clientVariant(
  'client',
  new lib.PortalOAuth(input.pair, input.secret, {
    logger: lib.createNullLogger(),
    restrictionParams: UNPACED,
  }),
)
const kyAlone = input.kyPair ? kyVariant(input.kyPair) : null

async function run(variant: CpuVariant, calls: number): Promise<void> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1
      await variant.call()
    }
  }
  await Promise.all(Array.from({ length: input.concurrency }, worker))
}

async function measured(
  name: ProfileWindow['variant'],
  variant: CpuVariant,
  calls: number,
): Promise<ProfileWindow> {
  const cpu = process.cpuUsage()
  const from = Number(process.hrtime.bigint() / 1000n)
  await run(variant, calls)
  const used = process.cpuUsage(cpu)
  const to = Number(process.hrtime.bigint() / 1000n)
  return { variant: name, from, to, cpuUs: used.user + used.system, calls }
}

await run(client, Math.min(2_000, input.calls))
if (kyAlone) await run(kyAlone, Math.min(2_000, input.calls))
const windows: ProfileWindow[] = []
if (!kyAlone) windows.push(await measured('client', client, input.calls))
else {
  for (let done = 0; done < input.calls; done += WINDOW_CALLS) {
    // Each pair of windows in turn order, so that neither always runs first.
    const order = (done / WINDOW_CALLS) % 2 === 0 ? (['client', 'ky'] as const) : (['ky', 'client'] as const)
    for (const name of order)
      windows.push(await measured(name, name === 'client' ? client : kyAlone, WINDOW_CALLS))
  }
  await kyAlone.close()
}
await client.close()
console.log(JSON.stringify(windows))
