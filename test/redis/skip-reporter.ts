import type { Reporter, TestModule } from 'vitest/node'
import { REDIS_HINT, redisInstalled } from './redis-server.js'

/** Counts the Redis tests skipped for want of `redis-server` and says so in one line at the end of the run. */
export default class RedisSkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (redisInstalled) return
    let skipped = 0
    for (const module of testModules) {
      if (!module.moduleId.replaceAll('\\', '/').includes('/test/redis/')) continue
      for (const test of module.children.allTests()) if (test.options.mode === 'skip') skipped += 1
    }
    if (skipped > 0) console.log(`Redis: ${skipped} tests skipped, redis-server not found (${REDIS_HINT})`)
  }
}
