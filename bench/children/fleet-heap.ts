/**
 * Child of the fleet heap figure: the heap that one `PortalFleet` holding `count` idle portals adds, after GC. The
 * pairs are in the fleet's `MemoryStore` before the first measurement, because with a shared store they live in
 * Redis, not in the process.
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
const pairs = Array.from({ length: input.count + 1 }, (_, index) => ({
  ...input.pair,
  accessToken: `${input.pair.accessToken}${index}`,
  refreshToken: `${input.pair.refreshToken}${index}`,
  memberId: `${input.pair.memberId}${index}`,
  applicationToken: `${input.pair.applicationToken}${index}`,
}))
const store = new lib.MemoryStore()
for (const pair of pairs) await store.replace(pair)
const fleet = new lib.PortalFleet({ oAuthSecret: input.secret, store })
// One portal first, so that module-level caches are not counted.
const [first, ...rest] = pairs
if (first) await fleet.get(first.memberId)
collect()
const before = process.memoryUsage().heapUsed
const held = []
for (const pair of rest) held.push(await fleet.get(pair.memberId))
collect()
const after = process.memoryUsage().heapUsed
console.log(JSON.stringify({ bytesPerPortal: (after - before) / held.length, portals: held.length }))
await fleet.destroy()
