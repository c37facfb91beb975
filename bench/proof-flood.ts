/**
 * `npm run bench:proof-flood`: a flood of forged install events against a `PortalFleet` while the OAuth server answers
 * `app.info` in 200 ms (docs/fleet.md, "Floods"). The emulator runs in a child process (its memory is not this
 * process's). First, alone, a genuine `ONAPPUPDATE` of an installed portal, a few times: one proof's round trip (the
 * event until the OAuth server's answer to its `app.info`) and the event's whole time. Then `FLOOD_FORGED` (default
 * 3 000) forged `ONAPPINSTALL`s (made-up access tokens, portals never seen) and right after them one genuine
 * `ONAPPUPDATE`: how long after its own proof came back the genuine event settled, its whole time as a ratio to the
 * round trip measured alone, the `app.info` requests the OAuth server received, how the forged events ended, and the
 * process's peak RSS. Prints a Markdown table for docs/benchmarks.md. `FLOOD_LATENCY_MS` (default 200) sets the
 * OAuth server's answer time.
 */
import { runMain } from '../scripts/dev/run-main.js'
import { DEFAULT_REST_ANSWER_LIMIT_BYTES } from '../src/http/answer-limit.js'
import { createPooledFetch } from '../src/http/undici-fetch.js'
import { MemoryStore, PortalFleet } from '../src/index.js'
import type { EmulatorAuthParams, PortalEmulatorProcess } from '../src/testing/index.js'
import { startPortalEmulatorProcess } from '../src/testing/index.js'

const forged = Number(process.env.FLOOD_FORGED ?? 3_000)
const latencyMs = Number(process.env.FLOOD_LATENCY_MS ?? 200)
const aloneRounds = 5

/** An install or update event body carrying `params` (as the portal posts it, see src/testing/install-events.ts). */
function eventBody(
  event: 'ONAPPINSTALL' | 'ONAPPUPDATE',
  emulator: PortalEmulatorProcess,
  params: EmulatorAuthParams,
): URLSearchParams {
  const body = new URLSearchParams({ event, ts: String(Math.floor(Date.now() / 1000)) })
  const auth: Record<string, string> = {
    access_token: params.accessToken,
    expires: String(params.expires),
    expires_in: String(params.expiresIn),
    scope: params.scope,
    domain: params.domain,
    server_endpoint: emulator.serverEndpoint,
    status: params.status,
    client_endpoint: emulator.clientEndpoint,
    member_id: emulator.memberId,
    user_id: String(params.userId),
    refresh_token: params.refreshToken,
    application_token: emulator.applicationToken,
  }
  for (const [key, value] of Object.entries(auth)) body.append(`auth[${key}]`, value)
  return body
}

/** A made-up install of a portal never seen: another member id, a made-up access token, another application token. */
function forgedInstall(genuine: URLSearchParams, index: number): URLSearchParams {
  const body = new URLSearchParams(genuine)
  body.set('event', 'ONAPPINSTALL')
  body.set('auth[member_id]', `f${index.toString(16).padStart(31, '0')}`)
  body.set('auth[access_token]', `forged-${index}-${'x'.repeat(60)}`)
  body.set('auth[application_token]', 'b'.repeat(32))
  body.set('auth[expires]', String(Number(body.get('auth[expires]')) + 86_400))
  return body
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

async function main(): Promise<number> {
  const emulator = await startPortalEmulatorProcess()
  const pool = createPooledFetch({
    connections: 32,
    keepAliveTimeout: 4_000,
    maxAnswerBytes: DEFAULT_REST_ANSWER_LIMIT_BYTES,
  })
  /** When the OAuth server's answer to an `app.info` carrying each watched access token came back. */
  const proved = new Map<string, number>()
  const fleet = new PortalFleet({
    oAuthSecret: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    store: new MemoryStore(),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    httpOptions: {
      adapter: async (input, init) => {
        const response = await pool.fetch(input, init)
        const url = input instanceof Request ? input.url : String(input)
        const token = url.endsWith('/app.info/') ? new URLSearchParams(String(init?.body)).get('auth') : null
        if (token !== null && proved.has(token)) proved.set(token, performance.now())
        return response
      },
    },
  })
  try {
    await fleet.install(await emulator.issueAuthParams({ expiresIn: 600 }))
    await emulator.delayRequests(latencyMs, 1_000_000, { server: 'oauth', method: 'app.info' })
    let expiresIn = 3_600
    /** A genuine update, newer than the stored pair: its whole time and the time from its proof's answer on. */
    const genuineUpdate = async (): Promise<{ body: URLSearchParams; token: string }> => {
      expiresIn += 60
      const params = await emulator.issueAuthParams({ expiresIn })
      proved.set(params.accessToken, Number.NaN)
      return { body: eventBody('ONAPPUPDATE', emulator, params), token: params.accessToken }
    }
    const timed = async (
      update: { body: URLSearchParams; token: string },
      started: number,
    ): Promise<{ total: number; afterProof: number }> => {
      const result = await fleet.handleEvent(update.body)
      const settled = performance.now()
      if (!result.changed) throw new Error('the genuine update changed nothing')
      const answered = proved.get(update.token) ?? Number.NaN
      return { total: settled - started, afterProof: settled - answered }
    }

    const alone: { total: number; proof: number }[] = []
    for (let round = 0; round < aloneRounds; round += 1) {
      const update = await genuineUpdate()
      const started = performance.now()
      const { total, afterProof } = await timed(update, started)
      alone.push({ total, proof: total - afterProof })
    }
    const proofMs = median(alone.map((round) => round.proof))
    const aloneMs = median(alone.map((round) => round.total))

    await emulator.clearLog()
    const template = eventBody('ONAPPINSTALL', emulator, await emulator.issueAuthParams())
    const bodies = Array.from({ length: forged }, (_, index) => forgedInstall(template, index))
    const outcomes = { refused: 0, shed: 0, stored: 0, other: 0 }
    let pendingAtGenuine = 0
    const flood = bodies.map((body) =>
      fleet.handleEvent(body).then(
        () => {
          outcomes.stored += 1
        },
        (error: { code?: string; message?: string }) => {
          if (error.code === 'JSSDK_EVENT_NOT_PROVED' && /too many/.test(error.message ?? ''))
            outcomes.shed += 1
          else if (error.code === 'JSSDK_EVENT_NOT_PROVED') outcomes.refused += 1
          else outcomes.other += 1
        },
      ),
    )
    const update = await genuineUpdate()
    const started = performance.now()
    const genuine = await timed(update, started)
    pendingAtGenuine = forged - (outcomes.refused + outcomes.shed + outcomes.stored + outcomes.other)
    await Promise.all(flood)
    const floodMs = performance.now() - started
    const log = await emulator.getLog()
    const appInfo = log.filter((entry) => entry.server === 'oauth' && entry.restMethod === 'app.info').length
    const peakRssMb = process.resourceUsage().maxRSS / 1024

    const rows: [string, string][] = [
      [
        `one proof's round trip, a genuine ONAPPUPDATE alone (median of ${aloneRounds})`,
        `${proofMs.toFixed(0)} ms (the whole event ${aloneMs.toFixed(0)} ms)`,
      ],
      [
        `the genuine ONAPPUPDATE behind ${forged} forged installs: settled after its own proof came back`,
        `${genuine.afterProof.toFixed(0)} ms`,
      ],
      [
        'the genuine ONAPPUPDATE behind the flood: its whole time over one proof alone',
        `${(genuine.total / proofMs).toFixed(2)}x (${genuine.total.toFixed(0)} ms)`,
      ],
      ['forged installs still unsettled when the genuine event settled', `${pendingAtGenuine} of ${forged}`],
      [
        'app.info requests the OAuth server received during the flood (the genuine one included)',
        String(appInfo),
      ],
      [
        'forged installs: refused after a proof / refused unchecked / stored / other',
        `${outcomes.refused} / ${outcomes.shed} / ${outcomes.stored} / ${outcomes.other}`,
      ],
      ['until every forged install settled', `${(floodMs / 1000).toFixed(1)} s`],
      ['peak RSS of the fleet process', `${peakRssMb.toFixed(0)} MB`],
    ]
    console.log(`OAuth server answering app.info in ${latencyMs} ms, Node ${process.version}`)
    console.log('| figure | measured |\n| --- | --- |')
    for (const [figure, measured] of rows) console.log(`| ${figure} | ${measured} |`)
    return outcomes.stored === 0 ? 0 : 1
  } finally {
    await fleet.destroy()
    await pool.close()
    await emulator.close()
  }
}

runMain(main)
