/**
 * One application process of the multi-process tests, run with `node --import tsx`: a `PortalOAuth` on a
 * `RedisStore` of its own connection (ioredis, or node-redis with `client: 'node-redis'`). The parent drives it over
 * IPC: `{ type: 'go', calls }` runs that many calls at once and answers `{ type: 'done', ... }`; `{ type: 'stream',
 * intervalMs }` makes a call every `intervalMs` until `{ type: 'stop' }`, then answers `{ type: 'streamed', ... }`
 * once every call settled; `{ type: 'exit' }` ends it. With `hold`, its refresh announces `{ type: 'holding' }` and
 * never sends anything (the parent kills it then).
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { createClient, createCluster } from 'redis'
import { createNullLogger, PortalOAuth, type PortalOAuthParams } from '../../src/index.js'
import { type RedisClient, RedisStore } from '../../src/redis.js'
import { Cluster, Redis } from './ioredis-under-test.js'

/** What the parent hands a worker. */
export interface WorkerConfig {
  nodes: Array<{ host: string; port: number }>
  cluster: boolean
  pair: PortalOAuthParams
  secret: { clientId: string; clientSecret: string }
  lockTtl?: number
  refreshTimeout?: number
  hold?: boolean
  /** The portal's leaky bucket, shared through the store. */
  rateLimit?: { burstLimit: number; drainRate: number }
  /** The Redis client the store is built on; ioredis by default. */
  client?: 'ioredis' | 'node-redis'
  /** The store's `commandTimeout`. */
  commandTimeout?: number
  /** The store's `bucketMargin`. */
  bucketMargin?: number
  /** The calls' own `timeout` (`httpOptions.timeout`). */
  callTimeout?: number
}

/** Messages from the parent. */
export type ToWorker =
  | { type: 'go'; calls: number }
  | { type: 'stream'; intervalMs: number }
  | { type: 'stop' }
  | { type: 'exit' }

/** Messages to the parent. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'holding' }
  | { type: 'done'; ok: number; failed: string[]; callbacks: number; refreshToken: string }
  | { type: 'streamed'; ok: number; failed: string[]; refreshToken: string }

function send(message: FromWorker): void {
  process.send?.(message)
}

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig

/** The store's client, connected, and how to close it. */
async function connect(): Promise<{ client: RedisClient; close: () => Promise<void> }> {
  const [first] = config.nodes
  if (config.client === 'node-redis') {
    const made = config.cluster
      ? createCluster({ rootNodes: config.nodes.map((node) => ({ socket: node })) })
      : createClient({ socket: first! })
    made.on('error', () => undefined)
    await made.connect()
    return { client: made, close: async () => made.destroy() }
  }
  const made = config.cluster ? new Cluster(config.nodes) : new Redis(first!.port, first!.host)
  made.on('error', () => undefined)
  return { client: made, close: async () => made.disconnect() }
}

const connection = await connect()
const store = new RedisStore(connection.client, {
  ...(config.commandTimeout === undefined ? {} : { commandTimeout: config.commandTimeout }),
  ...(config.bucketMargin === undefined ? {} : { bucketMargin: config.bucketMargin }),
})
const portal = new PortalOAuth(config.pair, config.secret, {
  logger: createNullLogger(),
  store,
  ...(config.callTimeout === undefined ? {} : { httpOptions: { timeout: config.callTimeout } }),
  ...(config.lockTtl === undefined ? {} : { lockTtl: config.lockTtl }),
  ...(config.refreshTimeout === undefined ? {} : { refreshTimeout: config.refreshTimeout }),
  ...(config.rateLimit === undefined ? {} : { restrictionParams: { rateLimit: config.rateLimit } }),
})
let callbacks = 0
portal.setCallbackRefreshAuth(() => {
  callbacks += 1
})
if (config.hold) {
  portal.setCustomRefreshAuth(() => {
    send({ type: 'holding' })
    return new Promise(() => undefined)
  })
}

/** A call's outcome: `ok`, or its error code. */
function outcome(call: Promise<{ isSuccess: boolean }>): Promise<string> {
  return call.then(
    (result) => (result.isSuccess ? 'ok' : 'not a success'),
    (error: { code?: unknown }) => String(error.code),
  )
}

let streaming = false

/** A call every `intervalMs` until `stop`; answers once every call settled. */
async function stream(intervalMs: number): Promise<void> {
  streaming = true
  const calls: Array<Promise<string>> = []
  while (streaming) {
    calls.push(outcome(portal.actions.v2.call.make({ method: 'profile' })))
    await sleep(intervalMs)
  }
  const outcomes = await Promise.all(calls)
  const failed = outcomes.filter((code) => code !== 'ok')
  send({
    type: 'streamed',
    ok: outcomes.length - failed.length,
    failed,
    refreshToken: portal.auth.getParams().refreshToken,
  })
}

process.on('message', async (message: ToWorker) => {
  if (message.type === 'exit') {
    await portal.destroy()
    await store.close()
    await connection.close()
    process.exit(0)
  }
  if (message.type === 'stream') return void stream(message.intervalMs)
  if (message.type === 'stop') {
    streaming = false
    return
  }
  const results = await Promise.all(
    Array.from({ length: message.calls }, (_, index) =>
      index % 2 === 0
        ? portal.actions.v2.call.make({ method: 'profile' })
        : portal.actions.v3.call.make({ method: 'tasks.task.list' }),
    ),
  )
  const failed = results.flatMap((result) =>
    result.isSuccess ? [] : result.getErrors().map((error) => String((error as { code?: unknown }).code)),
  )
  send({
    type: 'done',
    ok: results.length - failed.length,
    failed,
    callbacks,
    refreshToken: portal.auth.getParams().refreshToken,
  })
})
send({ type: 'ready' })
