/**
 * One application process of the multi-process tests, run with `node --import tsx`: a `PortalOAuth` on a
 * `RedisStore` of its own connection. The parent drives it over IPC: `{ type: 'go', calls }` runs that many calls at
 * once and answers `{ type: 'done', ... }`; `{ type: 'exit' }` ends it. With `hold`, its refresh announces
 * `{ type: 'holding' }` and never sends anything (the parent kills it then).
 */

import { createNullLogger, PortalOAuth, type PortalOAuthParams } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
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
}

/** Messages from the parent. */
export type ToWorker = { type: 'go'; calls: number } | { type: 'exit' }

/** Messages to the parent. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'holding' }
  | { type: 'done'; ok: number; failed: string[]; callbacks: number; refreshToken: string }

function send(message: FromWorker): void {
  process.send?.(message)
}

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig
const client = config.cluster
  ? new Cluster(config.nodes)
  : new Redis(config.nodes[0]!.port, config.nodes[0]!.host)
const store = new RedisStore(client)
const portal = new PortalOAuth(config.pair, config.secret, {
  logger: createNullLogger(),
  store,
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

process.on('message', async (message: ToWorker) => {
  if (message.type === 'exit') {
    await portal.destroy()
    await store.close()
    client.disconnect()
    process.exit(0)
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
