/**
 * Child of `npm run bench:profile`: `calls` v2 `crm.item.get` calls through `call.make` on the built package against
 * an emulator in another process (started by the parent, so that its CPU is not in this profile), `concurrency`
 * at a time, after a warm-up. Run under `node --cpu-prof`; the profile covers the warm-up too, the parent keeps only
 * the samples taken while the measured calls ran (between the two marks this child prints).
 */
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { lib } from '../lib/package.js'
import { UNPACED } from '../lib/rig.js'

interface Input {
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  calls: number
  concurrency: number
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input
const portal = new lib.PortalOAuth(input.pair, input.secret, {
  logger: lib.createNullLogger(),
  restrictionParams: UNPACED,
})

async function run(calls: number): Promise<void> {
  let started = 0
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1
      const result = await portal.actions.v2.call.make({
        unchecked: true,
        method: 'crm.item.get',
        params: { id: 1 },
      })
      if (!result.isSuccess) throw new Error(result.getErrorMessages().join('; '))
    }
  }
  await Promise.all(Array.from({ length: input.concurrency }, worker))
}

await run(Math.min(2_000, input.calls))
const cpu = process.cpuUsage()
// The monotonic clock in us, the clock of the V8 profile's timestamps.
const from = Number(process.hrtime.bigint() / 1000n)
await run(input.calls)
const used = process.cpuUsage(cpu)
const to = Number(process.hrtime.bigint() / 1000n)
await portal.destroy()
console.log(JSON.stringify({ from, to, cpuUs: used.user + used.system }))
