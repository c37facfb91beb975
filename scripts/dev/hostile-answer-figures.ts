/**
 * What a huge answer of a trusted OAuth server or of the portal costs a client (docs/security.md, "A hostile answer
 * of the portal or the OAuth server"): this process serves a 200 MB answer (300 MB for the refresh with retries),
 * made on the fly, to a client run in a child process per case; prints, per case and adapter, the error the caller
 * got, how long its promise took to settle (and that as a ratio of its deadline: `refreshTimeout`, 2 000 ms, for a
 * refresh, `httpOptions.timeout`, 30 000 ms, for a call), how much the child's peak RSS grew over its RSS before the
 * request, and how many bytes the server sent before the client closed the connection. Run:
 *
 *   scripts/dev/with-node.sh 24 npx tsx scripts/dev/hostile-answer-figures.ts
 *
 * With `--sizes`, prints instead how large the largest real REST answers are, the figures behind the default of
 * `httpOptions.maxAnswerBytes`: a v2 batch of 50 list pages of 50 deals (the vendor's documented `crm.deal.get`
 * answer, with Cyrillic text and 0, 20 or 50 custom text fields of 100 characters, escaped as the portal's PHP
 * escapes them) and a v3 batch of 50 pages of 1 000 tasks (the documented five-field select, and thirty fields with a
 * 500-character description).
 */
import { spawn } from 'node:child_process'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { runMain } from './run-main.js'

const MB = 1_000_000
/** The refresh's deadline the cases give the client. */
const REFRESH_TIMEOUT_MS = 2_000
/** A call's deadline: `httpOptions.timeout`'s default. */
const CALL_TIMEOUT_MS = 30_000
const MIB = 2 ** 20

/** One measured case: what the client does, with which adapter, against how big an answer. */
interface Case {
  name: 'refresh' | 'refresh-retries' | 'call'
  adapter: 'default' | 'fetch'
  bytes: number
}

/** What the child reports. */
interface ChildFigures {
  code: string
  settledMs: number
  rssGrowthMiB: number
}

const CASES: Case[] = [
  { name: 'refresh', adapter: 'default', bytes: 200 * MB },
  { name: 'refresh', adapter: 'fetch', bytes: 200 * MB },
  { name: 'refresh-retries', adapter: 'default', bytes: 300 * MB },
  { name: 'refresh-retries', adapter: 'fetch', bytes: 300 * MB },
  { name: 'call', adapter: 'default', bytes: 200 * MB },
  { name: 'call', adapter: 'fetch', bytes: 200 * MB },
]

/** The client's side, in the child: one refresh or one call against `origin`, then the figures on stdout. */
async function child(spec: Case, origin: string): Promise<void> {
  const { PortalOAuth, createNullLogger } = await import('../../src/index.js')
  const { startPortalEmulator } = await import('../../src/testing/index.js')
  const emulator = await startPortalEmulator()
  const pair = emulator.issueAuthParams()
  const oauth = spec.name !== 'call'
  const client = new PortalOAuth(
    oauth ? { ...pair, serverEndpoint: `${origin}/rest/` } : { ...pair, clientEndpoint: `${origin}/rest/` },
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    {
      logger: createNullLogger(),
      oauthServers: [origin],
      refreshTimeout: REFRESH_TIMEOUT_MS,
      refreshRetries: spec.name === 'refresh-retries' ? 3 : 0,
      httpOptions: spec.adapter === 'fetch' ? { adapter: (input, init) => fetch(input, init) } : {},
    },
  )
  const rssBefore = process.memoryUsage().rss
  const started = performance.now()
  const outcome = await (oauth
    ? client.auth.refreshAuth()
    : client.actions.v2.call.make({ method: 'profile', retryOnNetworkError: false })
  ).then(
    () => 'resolved',
    (error: unknown) => String((error as { code?: unknown }).code ?? (error as Error).name),
  )
  const settledMs = performance.now() - started
  const figures: ChildFigures = {
    code: outcome,
    settledMs,
    rssGrowthMiB: (process.resourceUsage().maxRSS * 1024 - rssBefore) / MIB,
  }
  console.log(JSON.stringify(figures))
  await client.destroy()
  await emulator.close()
}

/** Resolves when the response may be written to again, or when the connection is gone. */
function writable(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done)
      response.off('close', done)
      resolve()
    }
    response.on('drain', done)
    response.on('close', done)
  })
}

/** Serves `bytes` of JSON per request, chunk by chunk as the client reads; counts what was written. */
async function hugeServer(bytes: number): Promise<{ origin: string; sent: () => number[]; close(): void }> {
  const chunk = Buffer.alloc(64 * 1024, 'a')
  const sent: number[] = []
  const server = createServer(async (request, response) => {
    request.resume()
    const index = sent.push(0) - 1
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write('{"access_token":"')
    while (sent[index]! < bytes && !response.destroyed) {
      const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent[index]!))
      sent[index]! += part.length
      if (!response.write(part)) await writable(response)
    }
    if (!response.destroyed) response.end('"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => [...sent],
    close: () => {
      server.close()
      server.closeAllConnections()
    },
  }
}

async function runCase(spec: Case): Promise<string> {
  const server = await hugeServer(spec.bytes)
  try {
    const script = fileURLToPath(import.meta.url)
    const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(spec), server.origin], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString()
    })
    await new Promise((resolve) => child.on('exit', resolve))
    // The server's last writes settle once the child has gone.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const figures = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as ChildFigures
    const sent = server.sent()
    return [
      `${spec.name} (${spec.bytes / MB} MB)`.padEnd(26),
      spec.adapter.padEnd(8),
      figures.code.padEnd(24),
      `${(figures.settledMs / 1000).toFixed(2)} s`.padStart(8),
      `${(figures.settledMs / (spec.name === 'call' ? CALL_TIMEOUT_MS : REFRESH_TIMEOUT_MS)).toFixed(2)}x`.padStart(
        9,
      ),
      `${figures.rssGrowthMiB.toFixed(0)} MiB`.padStart(10),
      `${sent.length} request(s), ${(sent.reduce((sum, n) => sum + n, 0) / MB).toFixed(1)} MB sent`,
    ].join('  ')
  } finally {
    server.close()
  }
}

/** JSON as the portal's PHP writes it: every non-ASCII character and every slash escaped. */
function phpJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('/', '\\/')
    .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Cyrillic text of `length` characters. */
function cyrillic(length: number): string {
  return 'Сделка по договору поставки оборудования '.repeat(Math.ceil(length / 41)).slice(0, length)
}

/** A deal as the vendor documents `crm.deal.get`'s answer (api-reference/crm/deals/crm-deal-get.md), `custom` text fields added. */
function dealRow(id: number, custom: number): Record<string, unknown> {
  const row: Record<string, unknown> = {
    ID: String(id),
    TITLE: cyrillic(30),
    TYPE_ID: 'COMPLEX',
    STAGE_ID: 'PREPARATION',
    PROBABILITY: '99',
    CURRENCY_ID: 'EUR',
    OPPORTUNITY: '1000000.00',
    IS_MANUAL_OPPORTUNITY: 'Y',
    TAX_VALUE: '0.00',
    LEAD_ID: null,
    COMPANY_ID: '9',
    CONTACT_ID: '84',
    QUOTE_ID: null,
    BEGINDATE: '2024-08-30T02:00:00+02:00',
    CLOSEDATE: '2024-09-09T02:00:00+02:00',
    ASSIGNED_BY_ID: '1',
    CREATED_BY_ID: '1',
    MODIFY_BY_ID: '1',
    DATE_CREATE: '2024-08-30T14:29:00+02:00',
    DATE_MODIFY: '2024-08-30T14:29:00+02:00',
    OPENED: 'Y',
    CLOSED: 'N',
    COMMENTS: `[B]${cyrillic(60)}[/B]`,
    ADDITIONAL_INFO: cyrillic(40),
    LOCATION_ID: null,
    CATEGORY_ID: '0',
    STAGE_SEMANTIC_ID: 'P',
    IS_NEW: 'N',
    IS_RECURRING: 'N',
    IS_RETURN_CUSTOMER: 'N',
    IS_REPEATED_APPROACH: 'N',
    SOURCE_ID: 'CALLBACK',
    SOURCE_DESCRIPTION: cyrillic(40),
    ORIGINATOR_ID: null,
    ORIGIN_ID: null,
    MOVED_BY_ID: '1',
    MOVED_TIME: '2024-08-30T14:29:00+02:00',
    LAST_ACTIVITY_TIME: '2024-08-30T14:29:00+02:00',
    UTM_SOURCE: 'google',
    UTM_MEDIUM: 'CPC',
    UTM_CAMPAIGN: null,
    UTM_CONTENT: null,
    UTM_TERM: null,
    PARENT_ID_1220: '22',
    LAST_ACTIVITY_BY: '1',
  }
  for (let field = 0; field < custom; field += 1)
    row[`UF_CRM_17212444822${String(field).padStart(2, '0')}`] = cyrillic(100)
  return row
}

/** A task of a v3 `tasks.task.list` page: the documented five-field select, or thirty fields. */
function taskRow(id: number, full: boolean): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id,
    title: cyrillic(40),
    responsibleId: 93,
    deadline: '2026-12-25T23:00:00+03:00',
    status: 'pending',
  }
  if (!full) return row
  Object.assign(row, {
    description: cyrillic(500),
    creatorId: 1,
    groupId: 12,
    priority: 'average',
    mark: null,
    created: '2026-06-17T12:25:33+03:00',
    changed: '2026-06-17T12:25:33+03:00',
    closed: null,
    startPlan: null,
    endPlan: null,
    started: null,
    estimatedTime: 3600,
    activity: '2026-06-17T12:25:33+03:00',
    parentId: 0,
    allowsChangeDeadline: true,
    allowsTimeTracking: false,
    needsControl: false,
    accomplices: [5, 7],
    auditors: [9],
    tags: ['поставка', 'договор'],
    stageId: 0,
    flowId: null,
    chatId: 4411,
    durationPlan: 0,
  })
  return row
}

const TIME = {
  start: 1725020945.541275,
  finish: 1725020946.179076,
  duration: 0.6378,
  processing: 0.2142,
  date_start: '2024-08-30T14:29:05+02:00',
  date_finish: '2024-08-30T14:29:06+02:00',
  operating: 0,
}

/** A v2 batch answer of 50 `crm.deal.list` pages of 50 rows. */
function v2Batch(custom: number): string {
  const result: Record<string, unknown> = {}
  const counts: Record<string, number> = {}
  const times: Record<string, unknown> = {}
  for (let command = 0; command < 50; command += 1) {
    result[`cmd${command}`] = Array.from({ length: 50 }, (_, row) => dealRow(command * 50 + row + 1, custom))
    counts[`cmd${command}`] = 100_000
    times[`cmd${command}`] = TIME
  }
  const answer = { result, result_error: [], result_total: counts, result_next: counts, result_time: times }
  return phpJson({ result: answer, time: TIME })
}

/** A v3 batch answer of 50 `tasks.task.list` pages of 1 000 rows. */
function v3Batch(full: boolean): string {
  const pages = Array.from({ length: 50 }, (_, page) => ({
    items: Array.from({ length: 1_000 }, (_, row) => taskRow(page * 1_000 + row + 1, full)),
  }))
  return phpJson({ result: pages, time: TIME })
}

function sizes(): number {
  const line = (what: string, json: string): void =>
    console.log(`${what.padEnd(62)} ${(Buffer.byteLength(json) / MB).toFixed(1).padStart(6)} MB`)
  console.log(`one documented deal: ${phpJson(dealRow(410, 0)).length} bytes`)
  for (const custom of [0, 20, 50])
    line(`v2 batch, 50 pages x 50 deals, ${custom} custom text fields`, v2Batch(custom))
  line('v3 batch, 50 pages x 1 000 tasks, 5 fields (the documented select)', v3Batch(false))
  line('v3 batch, 50 pages x 1 000 tasks, 30 fields with a description', v3Batch(true))
  return 0
}

async function main(): Promise<number> {
  if (process.argv.includes('--sizes')) return sizes()
  console.log(
    `Node ${process.version}; refreshTimeout ${REFRESH_TIMEOUT_MS} ms, httpOptions.timeout ${CALL_TIMEOUT_MS} ms`,
  )
  console.log(
    [
      'case'.padEnd(26),
      'adapter'.padEnd(8),
      'outcome'.padEnd(24),
      'settled'.padStart(8),
      'deadline'.padStart(9),
      'RSS growth'.padStart(10),
      'server',
    ].join('  '),
  )
  for (const spec of CASES) console.log(await runCase(spec))
  return 0
}

const [given, origin] = process.argv.slice(2)
if (given && origin && given !== '--sizes') await child(JSON.parse(given) as Case, origin)
else runMain(main)
