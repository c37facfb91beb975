/**
 * One application process of the Sentinel kill rounds (`scripts/dev/sentinel-kill-rounds.ts`), forked with `--import
 * tsx`: a `PortalOAuth` on a `RedisStore({ replicas: 1 })` over an ioredis client that follows the master through the
 * sentinels, as docs/redis.md connects one. Driven over IPC: `stream` makes a call every `intervalMs` until `stop`,
 * which answers the outcomes; `pair` answers the refresh token held; `exit` ends it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { type LoggerInterface, PortalOAuth, type PortalOAuthParams } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'

/** What the parent hands a worker. */
export interface FailoverWorkerInput {
  sentinels: Array<{ host: string; port: number }>
  name: string
  pair: PortalOAuthParams
  secret: { clientId: string; clientSecret: string }
  rateLimit: { burstLimit: number; drainRate: number }
  /** `lockTtl`, ms, with a refresh timeout a second shorter; the defaults without it. */
  lockTtl?: number
}

/** Orders from the parent. */
export type ToFailoverWorker =
  | { type: 'stream'; intervalMs: number }
  | { type: 'stop' }
  | { type: 'pair' }
  | { type: 'exit' }

/** Answers to the parent. */
export type FromFailoverWorker =
  | { type: 'ready' }
  | { type: 'pair'; refreshToken: string }
  /** The calls' outcomes: how many succeeded, and the failed ones counted by error code. */
  | { type: 'streamed'; ok: number; failed: Record<string, number>; lines: string[] }

const input = JSON.parse(process.argv[2] ?? '{}') as FailoverWorkerInput

function send(message: FromFailoverWorker): void {
  process.send?.(message)
}

/** The portal's log lines at info and above, with the wall-clock time (the parent's lines have it too). */
const lines: string[] = []
const note =
  (level: string) =>
  (message: string, meta?: Record<string, unknown>): void => {
    const cause = meta?.error as { message?: unknown } | undefined
    const error = typeof cause?.message === 'string' ? `: ${cause.message}` : ''
    lines.push(`${new Date().toISOString().slice(11, 23)} ${level} ${message}${error}`)
  }
const logger: LoggerInterface = { debug() {}, info: note('info'), warn: note('warn'), error: note('error') }

const redis = new Redis({
  sentinels: input.sentinels,
  name: input.name,
  failoverDetector: true,
  reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
})
redis.on('error', () => undefined)
// As docs/redis.md says: ioredis ends a client for good when its failover detector disconnects it during a
// reconnection (a killed master); connect it again unless this process closes it.
let closing = false
redis.on('end', () => {
  if (!closing) redis.connect().catch(() => undefined)
})
const store = new RedisStore(redis, { replicas: 1, logger })
const portal = new PortalOAuth(input.pair, input.secret, {
  logger,
  store,
  restrictionParams: { rateLimit: input.rateLimit },
  ...(input.lockTtl === undefined ? {} : { lockTtl: input.lockTtl, refreshTimeout: input.lockTtl - 1_000 }),
})

let streaming = false

async function stream(intervalMs: number): Promise<void> {
  streaming = true
  const calls: Array<Promise<string>> = []
  while (streaming) {
    calls.push(
      portal.actions.v2.call.make({ method: 'profile' }).then(
        (result) => (result.isSuccess ? 'ok' : 'not a success'),
        (error: { code?: unknown }) => String(error.code),
      ),
    )
    await sleep(intervalMs)
  }
  const failed: Record<string, number> = {}
  let ok = 0
  for (const outcome of await Promise.all(calls)) {
    if (outcome === 'ok') ok += 1
    else failed[outcome] = (failed[outcome] ?? 0) + 1
  }
  send({ type: 'streamed', ok, failed, lines })
}

process.on('message', async (message: ToFailoverWorker) => {
  switch (message.type) {
    case 'stream':
      return void stream(message.intervalMs)
    case 'stop':
      streaming = false
      return
    case 'pair':
      return send({ type: 'pair', refreshToken: portal.auth.getParams().refreshToken })
    case 'exit':
      await portal.destroy()
      await store.close()
      closing = true
      redis.disconnect()
      process.exit(0)
  }
})
send({ type: 'ready' })
