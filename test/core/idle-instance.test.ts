import { describe, expect, it } from 'vitest'
import { PortalOAuth } from '../../src/index.js'
import { startPortalEmulator } from '../../src/testing/index.js'
import { forceGc, settledHeap } from '../actions/heap.js'

const INSTANCES = 2_000
/** The budget of an idle `PortalOAuth`: at most 3 KB of heap (2.6 KB in `npm run bench`). */
const MAX_IDLE_BYTES = 3 * 1024
/**
 * What the first read of an idle instance may add: the machine's initial snapshot, computed then (about 1 KB). An
 * actor, which a read of a valid token must not start, adds about 27 KB.
 */
const MAX_READ_BYTES = 2 * 1024

describe('an idle PortalOAuth', () => {
  const gc = forceGc()

  it.skipIf(!gc)(
    'holds at most 3 KB, and reading its valid token (getAuthData, tokenState) starts nothing',
    async () => {
      const collect = gc as () => void
      const emulator = await startPortalEmulator()
      const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
      // The pairs are made first: the application holds them anyway (read from its database).
      const pairs = Array.from({ length: INSTANCES }, () => emulator.issueAuthParams())
      // One instance first, so that module-level caches are not counted.
      new PortalOAuth(pairs[0]!, secret).auth.getAuthData()
      const empty = settledHeap(collect)
      const instances = pairs.map((pair) => new PortalOAuth(pair, secret))
      const built = settledHeap(collect)
      for (const portal of instances) {
        expect(portal.auth.getAuthData()).not.toBe(false)
        expect(portal.tokenState).toBe('valid')
      }
      const read = settledHeap(collect)
      expect((built - empty) / INSTANCES).toBeLessThanOrEqual(MAX_IDLE_BYTES)
      expect((read - built) / INSTANCES).toBeLessThanOrEqual(MAX_READ_BYTES)
      await Promise.all(instances.map((portal) => portal.destroy()))
      await emulator.close()
    },
  )
})
