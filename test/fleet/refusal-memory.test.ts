import { afterEach, describe, expect, it, vi } from 'vitest'
import { SdkErrorCode } from '../../src/index.js'
import { createFleetRig } from './fleet-rig.js'
import { forgedInstall, proofRequests, strangerId } from './forged-install.js'

// How many refusals of the OAuth server a fleet remembers (docs/fleet.md, "Floods"): a flood of distinct made-up
// tokens costs a bounded memory. Over 4 000 proofs against the emulator (a minute, several on a loaded machine):
// slow tier, and left out of the mutation suite (test/mutation/vitest.fleet-store.config.ts) for its time.

const rig = createFleetRig()
afterEach(async () => {
  vi.useRealTimers()
  await rig.close()
})

describe("the OAuth server's refusals remembered", () => {
  it('4 096 at most, the least recently met forgotten first', { timeout: 600_000 }, async () => {
    // The clock stands still (every timer is real): no refusal outlives its minute, however long the proofs take.
    vi.useFakeTimers({ toFake: ['Date'] })
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const install = (token: string): URLSearchParams =>
      forgedInstall(portal, { memberId: strangerId(5), accessToken: token })
    /** Sends each body, a few hundred at a time (within the waiting bound), and expects every one refused. */
    const refuse = async (bodies: URLSearchParams[]): Promise<void> => {
      for (let at = 0; at < bodies.length; at += 256) {
        const outcomes = await Promise.allSettled(
          bodies.slice(at, at + 256).map((body) => fleet.handleEvent(body)),
        )
        for (const outcome of outcomes)
          expect(outcome).toMatchObject({ status: 'rejected', reason: { code: SdkErrorCode.EventNotProved } })
      }
    }
    const tokens = Array.from({ length: 4096 }, (_, index) => `made-up-${index}`)
    await refuse([install('first')])
    await refuse(tokens.slice(0, 4094).map(install))
    // Met again: now the most recently met, and a repeat costs no request.
    await refuse([install('first')])
    expect(proofRequests(portal)).toBe(4095)
    // The 4 096th refusal is kept beside the others; the 4 097th pushes out the least recently met, made-up-0.
    await refuse(tokens.slice(4094).map(install))
    expect(proofRequests(portal)).toBe(4097)
    await refuse([install('made-up-1'), install('first')])
    expect(proofRequests(portal)).toBe(4097)
    await refuse([install('made-up-0')])
    expect(proofRequests(portal)).toBe(4098)
  })
})
