import { readFileSync } from 'node:fs'
import ky from 'ky'
import ky1 from 'ky1'
import { Agent, request } from 'undici'
import type { PortalOAuth } from '../../src/index.js'
import { USER_AGENT } from '../../src/version.js'
import { type CpuVariant, cpuRounds } from '../lib/cpu.js'
import type { FigureResult } from '../lib/figure.js'
import { adapter, retryClone } from '../lib/package.js'
import { type BenchRig, UNPACED } from '../lib/rig.js'
import { fixed } from '../lib/stats.js'
import { loadVendorSdk, VENDOR_PACKAGE, VENDOR_VERSION, type VendorSdk } from '../lib/vendor.js'

/** The call every variant makes: small parameters, small answer, so the client's own cost is not hidden. */
const METHOD = 'crm.item.get'
const PARAMS = { id: 1 }
/** The bar: client CPU per call at most this many times the raw `undici.request` floor. */
const MAX_RATIO = 3
const CONCURRENCY = 32
/** The bar of the client's own code: CPU per call at most this many times ky alone over the same adapter. */
const MAX_OVER_KY = 1.1
/**
 * Rounds of the client against ky alone. The client against itself, on the main thread, spreads 0.78x to 1.34x
 * from round to round: the median of 13 rounds moved by 0.1 between runs, the width of the bar's whole margin.
 */
const OVER_KY_ROUNDS = 41
/** The side channels stay only while they save at least this share of the CPU per call. */
const MIN_SIDE_CHANNEL_SAVING = 0.15
/** The bars against the vendor's SDK: client CPU per call at most this share of the vendor's, per mode. */
const VENDOR_BARS: Record<string, number> = { sequential: 0.6, [`${CONCURRENCY} concurrent`]: 0.5 }

function clientVariant(name: string, portal: PortalOAuth): CpuVariant {
  return {
    name,
    call: async () => {
      const result = await portal.actions.v2.call.make({ unchecked: true, method: METHOD, params: PARAMS })
      if (!result.isSuccess) throw new Error(`${name}: ${result.getErrorMessages().join('; ')}`)
    },
    close: () => portal.destroy(),
  }
}

async function rawVariant(rig: BenchRig): Promise<CpuVariant> {
  const pair = await rig.pair()
  // The same pool settings as the client's default adapter, and the same body the client sends.
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 })
  const url = `${pair.clientEndpoint}${METHOD}`
  const body = JSON.stringify({ ...PARAMS, auth: pair.accessToken })
  const headers = { 'content-type': 'application/json', accept: 'application/json' }
  return {
    name: 'raw undici.request (floor)',
    call: async () => {
      const answer = await request(url, { method: 'POST', headers, body, dispatcher: agent })
      const payload = (await answer.body.json()) as { result?: unknown }
      if (answer.statusCode !== 200 || payload.result === undefined) throw new Error('raw call failed')
    },
    close: () => agent.close(),
  }
}

/**
 * ky over the default adapter with the options the client gives it, and nothing else: what the client costs without
 * its own code. Like the client, it builds the JSON body per call and sends the client's headers (user agent
 * included), a `beforeRequest` hook, the same retry settings (a fresh object per call, `shouldRetry` a closure over
 * the call, as the client's is) and the body beside the `Request`; it parses the answer.
 */
async function kyVariant(
  rig: BenchRig,
  sideChannels = true,
  kyModule: KyModule = ky,
  label?: string,
): Promise<CpuVariant> {
  const pair = await rig.pair()
  const pool = adapter.createPooledFetch({ connections: CONCURRENCY, keepAliveTimeout: 4_000 })
  // ky 1 and ky 2 take the same options for this request shape; the hook ignores its arguments in both.
  const client = (kyModule as typeof ky).create({
    fetch: pool.fetch,
    timeout: 30_000,
    throwHttpErrors: (status) => status === 429 || status === 503,
    headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': USER_AGENT },
    hooks: {
      // As the client's hook: no clone per attempt of a body-less request (ky 2 passes a state object, ky 1 the request).
      beforeRequest: [
        async (state: Request | { request: Request }) => {
          retryClone.shareBodylessRequest(state instanceof Request ? state : state.request)
        },
      ],
    },
  })
  const url = `${pair.clientEndpoint}${METHOD}`
  const methods = ['post']
  const delay = (attempt: number): number => 1_000 * 2 ** (attempt - 1)
  const jitter = (ms: number): number => ms * (1 + Math.random() / 4)
  return {
    name:
      label ??
      (sideChannels
        ? 'ky.post over the default adapter, no client code'
        : 'the same, body and answer through ky (no side channels)'),
    call: async () => {
      const call = { retried: false }
      const body = JSON.stringify({ ...PARAMS, auth: pair.accessToken })
      const retry = {
        limit: 3,
        methods,
        delay,
        jitter,
        backoffLimit: 300_000,
        shouldRetry: async () => call.retried,
      }
      const response = await client.post(
        url,
        sideChannels
          ? ({ [adapter.RAW_BODY_OPTION]: body, context: { call }, retry } as Parameters<
              typeof client.post
            >[1])
          : { body, context: { call }, retry },
      )
      const text = sideChannels ? (adapter.answerText(response) ?? '') : await response.text()
      const payload = JSON.parse(text) as { result?: unknown }
      if (response.status !== 200 || payload.result === undefined) throw new Error('ky call failed')
    },
    close: () => pool.close(),
  }
}

/** ky 2 (the dependency) or ky 1 (the `ky1` dev dependency alias), for the figure that compares them. */
type KyModule = typeof ky | typeof ky1

/** The installed version of ky 1 or ky 2, for the row names. */
function kyVersion(name: 'ky' | 'ky1'): string {
  // ky's exports do not list package.json: read it where npm installs it.
  const manifest = new URL(`../../node_modules/${name}/package.json`, import.meta.url)
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

/** The vendor's `B24OAuth` making the same call on a fresh pair of the same emulator, limiter as unpaced as ours. */
async function vendorVariant(rig: BenchRig, sdk: VendorSdk): Promise<CpuVariant> {
  const pair = await rig.pair()
  const secret = { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret }
  const client = new sdk.B24OAuth(pair, secret, { restrictionParams: UNPACED })
  client.setLogger(sdk.LoggerFactory.createNullLogger())
  client.offClientSideWarning()
  const name = `${VENDOR_PACKAGE} ${VENDOR_VERSION} call.make`
  return {
    name,
    call: async () => {
      const result = await client.actions.v2.call.make({ method: METHOD, params: PARAMS })
      if (!result.isSuccess) throw new Error(`${name}: ${result.getErrorMessages().join('; ')}`)
    },
    close: async () => client.destroy(),
  }
}

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
    await rawVariant(rig),
    clientVariant('call.make, default adapter', await rig.client({ restrictionParams: UNPACED })),
    await kyVariant(rig),
    clientVariant(
      'call.make, adapter: global fetch',
      await rig.client({ restrictionParams: UNPACED, httpOptions: { adapter: fetch } }),
    ),
    await kyVariant(rig, false),
    // The ky row's request shape through ky 1: ky 1 hands unknown options to fetch as ky 2 does.
    await kyVariant(rig, true, ky1, `the ky row through ky ${kyVersion('ky1')} (ky 2 is ${kyVersion('ky')})`),
  ]
  // A dev dependency pinned exactly; BENCH_VENDOR=0 leaves it out.
  const vendor = process.env.BENCH_VENDOR === '0' ? null : await loadVendorSdk()
  const vendorIndex = vendor ? variants.push(await vendorVariant(rig, vendor)) - 1 : -1
  const modes = [
    { label: 'sequential', calls: options.sequentialCalls, concurrency: 1 },
    { label: `${CONCURRENCY} concurrent`, calls: options.concurrentCalls, concurrency: CONCURRENCY },
  ]
  // The client and ky alone first, side by side in rounds of their own: a few per cent apart, they need more rounds
  // than the other rows (see OVER_KY_ROUNDS). The variants stay open for the rounds of all of them.
  const kept = (variant: CpuVariant): CpuVariant => ({ ...variant, close: async () => {} })
  const pair = await cpuRounds([kept(variants[1]!), kept(variants[2]!)], modes, OVER_KY_ROUNDS)
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
    const floor = us(mode.label, 0)
    const client = us(mode.label, 1)
    const clientRatio = ratio(mode.label, 1)
    rows.push({
      figure: `client CPU per call.make, ${mode.label}`,
      measured: `${fixed(client)} us, ${fixed(clientRatio, 2)}x raw (${fixed(floor)} us)`,
      bar: `<= ${MAX_RATIO}x raw`,
      pass: clientRatio <= MAX_RATIO,
      loadSensitive: true,
    })
  }
  for (const mode of modes) {
    // The client's own code over ky's: ky alone over the same adapter with the same options, from the rounds of the
    // two alone, on the main thread's CPU (see CpuClock).
    const overKy = pair.ratio(mode.label, 0, 1, 'main')
    rows.push({
      figure: `client CPU per call.make over ky alone, ${mode.label}`,
      measured: `${fixed(overKy, 2)}x ky (main thread: ${fixed(pair.us(mode.label, 0, 'main'))} vs ${fixed(pair.us(mode.label, 1, 'main'))} us)`,
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
    `${options.rounds} rounds (after one warm-up round) of ${options.sequentialCalls} sequential and ${options.concurrentCalls} concurrent calls per variant; the ratio is the median of the ratios within each round. CPU is the process's (\`process.cpuUsage()\`); the rows over ky alone and of ky 2 over ky 1 read the main thread's (\`process.threadCpuUsage()\`), where V8's helper threads do not blur a difference of a few per cent. The rows over ky alone come from ${OVER_KY_ROUNDS} rounds of their own, the client and ky alone side by side. v2 \`${METHOD}\` with \`${JSON.stringify(PARAMS)}\`. The ky row is ky alone over the default adapter, with the options the client gives it: the part of the client's cost that is ky's and the adapter's.${vendorIndex >= 0 ? ` The ${VENDOR_PACKAGE} row is the vendor's SDK ${VENDOR_VERSION} (a dev dependency pinned exactly), its limiter unpaced like ours, against the same emulator process.` : ''}`,
  )
  return { rows, details }
}
