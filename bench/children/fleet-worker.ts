/**
 * One application process of the fleet figures (the built package, run with `node --import tsx`): a `PortalOAuth`
 * on a `RedisStore` of its own connection. Driven over IPC: `{ type: 'go', calls }` runs that many calls at once,
 * v2 and v3 alternating, and answers `{ type: 'done', ok, failed }`; `{ type: 'exit' }` ends it.
 */
import { Redis } from 'ioredis'
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { lib, redis } from '../lib/package.js'

/** What the figure hands a worker. */
export interface FleetWorkerInput {
  redis: { host: string; port: number }
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  /** The portal's leaky bucket, shared through the store. */
  rateLimit: { burstLimit: number; drainRate: number }
}

/** Messages from the figure. */
export type ToFleetWorker = { type: 'go'; calls: number } | { type: 'exit' }

/** Messages to the figure: `failed` holds the error code of every failed call. */
export type FromFleetWorker = { type: 'ready' } | { type: 'done'; ok: number; failed: string[] }

function send(message: FromFleetWorker): void {
  process.send?.(message)
}

const input = JSON.parse(process.argv[2] ?? '{}') as FleetWorkerInput
const client = new Redis(input.redis.port, input.redis.host)
const store = new redis.RedisStore(client)
const portal = new lib.PortalOAuth(input.pair, input.secret, {
  logger: lib.createNullLogger(),
  store,
  restrictionParams: { rateLimit: input.rateLimit },
})

process.on('message', async (message: ToFleetWorker) => {
  if (message.type === 'exit') {
    await portal.destroy()
    await store.close()
    client.disconnect()
    process.exit(0)
  }
  const results = await Promise.all(
    Array.from({ length: message.calls }, (_, index) =>
      index % 2 === 0
        ? portal.actions.v2.call.make({
            unchecked: true,
            method: 'crm.item.get',
            params: { entityTypeId: 2, id: 1 },
          })
        : portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } }),
    ),
  )
  const failed = results.flatMap((result) =>
    result.isSuccess ? [] : result.getErrors().map((error) => String((error as { code?: unknown }).code)),
  )
  send({ type: 'done', ok: results.length - failed.length, failed })
})
send({ type: 'ready' })
