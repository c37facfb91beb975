import { afterEach, describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { type Rig, startRig } from '../helpers.js'

// A refresh request outlives its attempt (a slower server's answer is still committed: late-persist.test.ts), but
// not for ever: it ends at the lock's TTL, or once destroy() has let the refresh in flight end. These instances have
// no store; on a shared store destroy() waits for the request, which holds the lock (test/faults/spend-once.test.ts).

let rig: Rig | undefined
afterEach(async () => {
  rig?.emulator.releaseHeldRequests()
  await rig?.close()
  rig = undefined
})

/** Resolves once the client has closed the request's connection; rejects after `withinMs`. */
async function closedByClient(entry: RequestLogEntry | undefined, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs
  while (!entry?.clientClosed) {
    if (Date.now() > deadline) throw new Error(`the refresh request was still open after ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A rig whose next refresh request the OAuth server holds; the attempt gives up after 100 ms, with no retry. */
async function heldRefresh(lockTtl: number): Promise<{ rig: Rig; entry: RequestLogEntry | undefined }> {
  const started = await startRig({ client: { refreshTimeout: 100, refreshRetries: 0, lockTtl } })
  started.emulator.holdRequests(1, { server: 'oauth' })
  const refused = started.portal.auth.refreshAuth().catch((error: unknown) => error)
  await started.emulator.waitForHeld(1)
  expect(await refused).toMatchObject({ code: 'REQUEST_TIMEOUT' })
  // The token endpoint's entry: its grant type is known only once the held request is processed.
  return { rig: started, entry: started.emulator.log.tokenRequests()[0] }
}

describe('a refresh request the OAuth server does not answer', () => {
  it('is closed by the client at the lock TTL (here 2 s)', async () => {
    // Long enough for the request to reach the server first on a loaded machine: with 400 ms, the TTL ended some
    // requests before the server held them, and the test waited for a held request that would never come.
    const held = await heldRefresh(2_000)
    rig = held.rig
    await closedByClient(held.entry, 5_000)
  })

  it('is closed by destroy() once the attempt is over, long before the lock TTL (here 2 minutes)', async () => {
    const held = await heldRefresh(120_000)
    rig = held.rig
    await rig.portal.destroy()
    await closedByClient(held.entry, 5_000)
  })
})
