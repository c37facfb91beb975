/**
 * Child of the refresh-heap figure: the heap that `refreshes` sequential refreshes over HTTP leave behind, after GC,
 * right after the last one and again once the lock's TTL (which bounds each refresh request) has passed. A warm-up
 * first, so that compiled code, pools and caches are not counted.
 */
import { setFlagsFromString } from 'node:v8'
import { codeSpaceBytes, collectWithFinalizers } from '../../scripts/dev/collect-garbage.js'
import type { EmulatorAuthParams } from '../../src/testing/index.js'
import { requireGc } from '../lib/child.js'
import { lib } from '../lib/package.js'

interface Input {
  pair: EmulatorAuthParams
  secret: { clientId: string; clientSecret: string }
  warmUp: number
  refreshes: number
  /** How long to wait for the second reading, ms: past the lock's TTL. */
  pastTtlMs: number
}

// V8 drops the bytecode of functions not run for a while (those of start-up and of the warm-up's first calls), by
// hundreds of KB at a time between two readings: the heap measured is that of data, so their bytecode stays.
setFlagsFromString('--no-flush-bytecode')

const input = JSON.parse(process.argv[2] ?? '{}') as Input
const collect = requireGc()
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Used heap after collections with pauses between them (a `FinalizationRegistry` frees in a later task), bytes. */
async function settledHeap(): Promise<{ used: number; code: number }> {
  await collectWithFinalizers(collect)
  return { used: process.memoryUsage().heapUsed, code: codeSpaceBytes() }
}

const portal = new lib.PortalOAuth(input.pair, input.secret, { logger: lib.createNullLogger() })
for (let done = 0; done < input.warmUp; done += 1) await portal.auth.refreshAuth()
await pause(input.pastTtlMs)
const before = await settledHeap()
for (let done = 0; done < input.refreshes; done += 1) await portal.auth.refreshAuth()
const rightAfter = await settledHeap()
await pause(input.pastTtlMs)
const pastTtl = await settledHeap()
await portal.destroy()
const perRefresh = (bytes: number) => bytes / input.refreshes
console.log(
  JSON.stringify({
    rightAfter: perRefresh(rightAfter.used - before.used),
    pastTtl: perRefresh(pastTtl.used - before.used),
    pastTtlCode: perRefresh(pastTtl.code - before.code),
  }),
)
