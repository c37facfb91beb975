import { setFlagsFromString } from 'node:v8'
import { afterEach, describe, expect, it } from 'vitest'
import { createNullLogger, PortalOAuth } from '../../src/index.js'
import { type PortalEmulatorProcess, startPortalEmulatorProcess } from '../../src/testing/index.js'
import { gcOrSkip, settledDataHeap } from '../actions/heap.js'

// The emulator runs in a child process: it keeps every pair it issued, which would grow the heap being measured.
// V8 drops the bytecode of functions not run for a while (start-up's, the warm-up's first calls) by hundreds of KB at
// a time, which would shrink a reading by more than a leak grows it: here it stays, as in the bench's child.
setFlagsFromString('--no-flush-bytecode')

let emulator: PortalEmulatorProcess | undefined
let portal: PortalOAuth | undefined
afterEach(async () => {
  await portal?.destroy()
  await emulator?.close()
  portal = undefined
  emulator = undefined
})

const WARM_UP = 2_000
const PER_WINDOW = 2_000
const WINDOWS = 4
const BAR_BYTES = 150

async function refreshes(client: PortalOAuth, count: number): Promise<void> {
  for (let done = 0; done < count; done += 1) await client.auth.refreshAuth()
}

describe('the default refresh in constant memory', () => {
  it(`windows of 2 000 refreshes over HTTP, one after another: one of ${WINDOWS} keeps under ${BAR_BYTES} B each once they are done`, {
    timeout: 300_000,
  }, async (context) => {
    const gc = gcOrSkip(context)
    if (!gc) return
    emulator = await startPortalEmulatorProcess({ rateLimit: false })
    portal = new PortalOAuth(
      await emulator.issueAuthParams(),
      { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      { logger: createNullLogger() },
    )
    // Warm-up: compiled code, pools and caches reach their size before the heap is first read.
    await refreshes(portal, WARM_UP)
    // A leak grows the heap in every window alike; what grows once does not come back. Node 22 optimizes the
    // refresh's path later than Node 24: read as the whole heap, three windows of 3 000 after 1 500 kept 349 to 378,
    // then 103 to 127, then 10 to 19 B a refresh on it (about 215 B of the first in V8's code spaces, not counted
    // here), and 26 to 91 B from the first window on Node 24. So the windows go on until one keeps under the bar.
    const perRefresh: number[] = []
    let before = await settledDataHeap(gc)
    while (perRefresh.length < WINDOWS && !perRefresh.some((bytes) => bytes < BAR_BYTES)) {
      await emulator.clearLog()
      await refreshes(portal, PER_WINDOW)
      const after = await settledDataHeap(gc)
      perRefresh.push((after - before) / PER_WINDOW)
      before = after
      // Each was a real rotation at the emulator's OAuth server, and the pair held is its newest.
      const log = await emulator.getLog()
      expect(log.filter((entry) => entry.kind === 'token' && entry.status === 200)).toHaveLength(PER_WINDOW)
      expect(portal.auth.getParams().refreshToken).toBe((await emulator.currentTokens()).refreshToken)
    }
    // Each request joined to a signal as long-lived as the instance (AbortSignal.any()) with its own 15 s timeout
    // signal kept 1 094 to 1 135 B. The bench's figure is the stricter one (docs/benchmarks.md).
    const read = perRefresh.map((bytes) => `${bytes.toFixed(0)} B`).join(', ')
    expect(Math.min(...perRefresh), `retained per refresh, window by window: ${read}`).toBeLessThan(BAR_BYTES)
  })
})
