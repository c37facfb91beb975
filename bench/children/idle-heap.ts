/**
 * Child of the idle-heap figure: the heap that `count` idle `PortalOAuth` instances add, after GC. The token pairs
 * are built before the first measurement, because the application holds them anyway (read from its database).
 */
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { requireGc } from '../lib/child.js'
import { lib } from '../lib/package.js'

interface Input {
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  count: number
}

const input = JSON.parse(process.argv[2] ?? '{}') as Input
const collect = requireGc()
const pairs = Array.from({ length: input.count }, (_, index) => ({
  ...input.pair,
  accessToken: `${input.pair.accessToken}${index}`,
  refreshToken: `${input.pair.refreshToken}${index}`,
  memberId: `${input.pair.memberId}${index}`,
  applicationToken: `${input.pair.applicationToken}${index}`,
}))
// One instance first, so that module-level caches are not counted.
new lib.PortalOAuth(input.pair, input.secret)
collect()
const before = process.memoryUsage().heapUsed
const instances = pairs.map((pair) => new lib.PortalOAuth(pair, input.secret))
collect()
const after = process.memoryUsage().heapUsed
console.log(
  JSON.stringify({ bytesPerInstance: (after - before) / instances.length, instances: instances.length }),
)
