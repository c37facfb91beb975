/**
 * The main job: a portal emulator in-process, a client restored from a persisted token pair that has expired,
 * a burst of 60 mixed v2/v3 calls with a progress bar, and a report: one refresh, no rejection, elapsed time
 * against the leaky bucket's floor. Exits 0 when all of that holds.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import cliProgress from 'cli-progress'
import { type AjaxResult, createNullLogger, PortalOAuth, type PortalOAuthParams } from '../../src/index.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { runMain } from '../dev/run-main.js'

const CALLS = 60
const TOKEN_FILE = resolve(process.env.PORTAL_DEMO_TOKEN_FILE ?? '.demo/tokens.json')

/** Writes the pair atomically: a crash mid-write never leaves a half-written file behind. */
async function persist(params: PortalOAuthParams): Promise<void> {
  await mkdir(dirname(TOKEN_FILE), { recursive: true })
  const temporary = `${TOKEN_FILE}.${process.pid}.tmp`
  await writeFile(temporary, `${JSON.stringify(params, null, 2)}\n`, { mode: 0o600 })
  await rename(temporary, TOKEN_FILE)
}

async function main(): Promise<number> {
  // One clock for the portal and the client, so that "an hour later" is one line.
  let offsetMs = 0
  const now = (): number => Date.now() + offsetMs
  const emulator = await startPortalEmulator({ now })
  const bucket = { burstLimit: 50, drainRate: 2 }
  console.log(`portal emulator: ${emulator.clientEndpoint} (OAuth server ${emulator.serverEndpoint})`)
  console.log(
    `leaky bucket: ${bucket.burstLimit} requests, draining ${bucket.drainRate}/s (enforced by the emulator too)`,
  )

  // Installation: the portal hands over a pair, the application persists it.
  await persist(emulator.issueAuthParams())
  console.log(`token pair persisted to ${TOKEN_FILE}`)

  // An hour and a minute later the server restarts and restores the pair, which has expired by now.
  offsetMs += 3_660_000
  const saved = JSON.parse(await readFile(TOKEN_FILE, 'utf8')) as PortalOAuthParams
  const portal = new PortalOAuth(
    saved,
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { now, logger: createNullLogger(), restrictionParams: { rateLimit: bucket } },
  )
  let persisted = 0
  portal.setCallbackRefreshAuth(async ({ b24OAuthParams }) => {
    await persist(b24OAuthParams)
    persisted += 1
  })
  console.log(
    `restored pair expired ${Math.round(now() / 1000 - saved.expires)} s ago; token state: ${portal.tokenState}`,
  )

  const bar = new cliProgress.SingleBar(
    {
      format: 'calls [{bar}] {value}/{total} | {duration_formatted}',
      noTTYOutput: true,
      notTTYSchedule: 1_000,
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(CALLS, 0)
  const started = performance.now()
  const settled = await Promise.allSettled(
    Array.from({ length: CALLS }, async (_, index): Promise<AjaxResult> => {
      const result =
        index % 2 === 0
          ? await portal.actions.v2.call.make({ method: 'profile', requestId: `demo-v2-${index}` })
          : await portal.actions.v3.call.make({ method: 'tasks.task.list', requestId: `demo-v3-${index}` })
      bar.increment()
      return result
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  bar.stop()

  const succeeded = settled.filter((item) => item.status === 'fulfilled' && item.value.isSuccess).length
  const refreshes = emulator.log.refreshRequests().length
  const rejections = emulator.log.rejected().length
  const floor = Math.max(0, CALLS - bucket.burstLimit) / bucket.drainRate
  const stored = JSON.parse(await readFile(TOKEN_FILE, 'utf8')) as PortalOAuthParams
  const storedIsCurrent = stored.refreshToken === portal.auth.getParams().refreshToken

  console.log('')
  console.log(`calls:              ${CALLS} (${CALLS / 2} v2 + ${CALLS / 2} v3), ${succeeded} succeeded`)
  console.log(`refresh requests:   ${refreshes}`)
  console.log(`portal rejections:  ${rejections}`)
  console.log(
    `elapsed:            ${elapsed.toFixed(2)} s against the bucket's floor of ${floor.toFixed(2)} s (x${(elapsed / floor).toFixed(3)})`,
  )
  console.log(
    `persisted pairs:    ${persisted}; ${TOKEN_FILE} holds the current pair: ${storedIsCurrent ? 'yes' : 'NO'}`,
  )

  await portal.destroy()
  await emulator.close()
  const ok = succeeded === CALLS && refreshes === 1 && rejections === 0 && storedIsCurrent
  console.log(ok ? 'demo passed' : 'demo FAILED')
  return ok ? 0 : 1
}

runMain(main)
