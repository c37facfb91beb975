/** The throwaway Redis of the tests (see scripts/dev/redis-server.ts), and what a missing `redis-server` means for them. */
import { redisInstalled } from '../../scripts/dev/redis-server.js'

export {
  freePort,
  type RedisUnderTest,
  redisInstalled,
  startRedisCluster,
  startRedisServer,
} from '../../scripts/dev/redis-server.js'

/** Set by CI: a missing Redis fails the run instead of skipping its tests. */
export const redisRequired = process.env.PORTAL_OAUTH_REQUIRE_REDIS === '1'

/** How to get the Redis tests when they are skipped. */
export const REDIS_HINT = 'apt-get install redis-server'

if (!redisInstalled && redisRequired) {
  throw new Error(`PORTAL_OAUTH_REQUIRE_REDIS=1 but redis-server is not installed (${REDIS_HINT})`)
}
