/**
 * `npm run soak`: the fault soak (see soak-lib.ts). Prints a line per burst and the totals; exits 1 when a pair was
 * lost or a burst sent more than three refresh requests.
 *
 *   npm run soak -- --bursts 20 --calls 200 --fault-rate 0.1 --seed 1
 */
import { parseArgs } from 'node:util'
import { runMain } from './run-main.js'
import { type BurstReport, MAX_REFRESH_REQUESTS_PER_BURST, runSoak, soakPassed } from './soak-lib.js'

function numberFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!Number.isFinite(number) || number < 0)
    throw new Error(`--${name} must be a non-negative number, got ${value}`)
  return number
}

function describe(map: Record<string, number>): string {
  const entries = Object.entries(map)
  return entries.length === 0 ? 'none' : entries.map(([key, value]) => `${key} ${value}`).join(', ')
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      bursts: { type: 'string' },
      calls: { type: 'string' },
      'fault-rate': { type: 'string' },
      seed: { type: 'string' },
    },
  })
  const options = {
    bursts: Math.floor(numberFlag(values.bursts, 'bursts', 20)),
    calls: Math.floor(numberFlag(values.calls, 'calls', 200)),
    faultRate: Math.min(1, numberFlag(values['fault-rate'], 'fault-rate', 0.1)),
    seed: Math.floor(numberFlag(values.seed, 'seed', 1)),
  }
  console.log(
    `fault soak: ${options.bursts} bursts x ${options.calls} mixed v2/v3 calls on an expired token, ` +
      `${Math.round(options.faultRate * 100)} % of requests faulted, seed ${options.seed}`,
  )
  const report = await runSoak({
    ...options,
    onBurst: (burst: BurstReport) =>
      console.log(
        `burst ${String(burst.burst).padStart(3)}: ${burst.ok} ok, failed ${describe(burst.failed)}; ` +
          `${burst.refreshRequests} refresh request(s); pair ${burst.pairLost ? 'LOST' : 'alive'}; ` +
          `longest call ${burst.longestCallMs} ms; faults ${describe(burst.faults)}`,
      ),
  })
  const { unsurvivable } = report
  console.log('')
  console.log(`bursts: ${report.bursts.length}`)
  console.log(`calls: ${report.calls} (${report.ok} ok, failed: ${describe(report.failed)})`)
  console.log(
    `refresh requests per burst: at most ${report.maxRefreshRequests} (budget ${MAX_REFRESH_REQUESTS_PER_BURST})`,
  )
  console.log(`pairs lost: ${report.pairsLost}`)
  console.log(`longest call: ${report.longestCallMs} ms`)
  console.log(
    `answer lost after the server rotated (no client can survive it): ${unsurvivable.refreshRequests} refresh ` +
      `request(s), tokenState ${unsurvivable.tokenState}, ` +
      `${unsurvivable.sameErrorForEveryCall ? 'every call failed at once with the same error' : 'calls failed differently'}`,
  )
  const passed = soakPassed(report)
  console.log(passed ? 'PASS' : 'FAIL')
  return passed ? 0 : 1
}

runMain(main)
