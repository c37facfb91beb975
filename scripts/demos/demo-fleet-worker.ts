/**
 * One worker process of `npm run demo:fleet` (run with `node --import tsx`): a `PortalFleet` on a `RedisStore` of
 * its own connection runs the job loop on every portal and tells the parent of each call as it settles
 * (`{ type: 'settled', memberId, outcome, code? }`), then `{ type: 'done' }`, and exits.
 */
import { Redis } from 'ioredis'
import { createNullLogger, PortalFleet } from '../../src/index.js'
import { RedisStore } from '../../src/redis.js'
import { type CallOutcome, runWorker } from './demo-fleet-calls.js'

/** What the demo hands a worker. */
export interface DemoWorkerInput {
  redis: { host: string; port: number }
  memberIds: string[]
  secret: { clientId: string; clientSecret: string }
}

/** Messages to the demo. */
export type FromDemoWorker =
  | { type: 'settled'; memberId: string; outcome: CallOutcome; code?: string }
  | { type: 'done' }

const input = JSON.parse(process.argv[2] ?? '{}') as DemoWorkerInput
const client = new Redis(input.redis.port, input.redis.host)
const store = new RedisStore(client)
const fleet = new PortalFleet({ oAuthSecret: input.secret, store, logger: createNullLogger() })
function send(message: FromDemoWorker): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve()
    process.send(message, () => resolve())
  })
}

await runWorker(fleet, input.memberIds, (memberId, outcome, code) =>
  send({ type: 'settled', memberId, outcome, ...(code === undefined ? {} : { code }) }),
)
await fleet.destroy()
await store.close()
client.disconnect()
await send({ type: 'done' })
process.exit(0)
