/**
 * One application process of the fleet figures: a `PortalOAuth` of the build on a `RedisStore` of its own
 * connection. Waits until `startAt` (so that every worker's calls start together), runs `calls` mixed calls at once,
 * prints `{ ok, failed, firstSentAt, lastDoneAt }` and exits.
 */
import { Redis } from 'ioredis'
import type { PortalOAuthParams } from '../../src/index.js'
import { lib, redis } from '../lib/package.js'

interface Input {
  port: number
  pair: PortalOAuthParams
  secret: { clientId: string; clientSecret: string }
  calls: number
  startAt: number
  rateLimit?: { burstLimit: number; drainRate: number }
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input
const client = new Redis(input.port, '127.0.0.1')
const store = new redis.RedisStore(client)
const portal = new lib.PortalOAuth(input.pair, input.secret, {
  logger: lib.createNullLogger(),
  store,
  restrictionParams: { rateLimit: input.rateLimit ?? { burstLimit: 1_000_000, drainRate: 1_000_000 } },
})
await new Promise((resolve) => setTimeout(resolve, Math.max(0, input.startAt - Date.now())))
const firstSentAt = Date.now()
const outcomes = await Promise.allSettled(
  Array.from({ length: input.calls }, (_, index) =>
    index % 2 === 0
      ? portal.actions.v2.call.make({ method: 'profile' })
      : portal.actions.v3.call.make({ method: 'tasks.task.list' }),
  ),
)
const lastDoneAt = Date.now()
const ok = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.isSuccess).length
await portal.destroy()
await store.close()
client.disconnect()
console.log(JSON.stringify({ ok, failed: input.calls - ok, firstSentAt, lastDoneAt }))
