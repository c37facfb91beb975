import fc from 'fast-check'
import { expect, it } from 'vitest'
import {
  BRACKET,
  type CapacityStep,
  KNEE_FACTOR,
  KNEE_FLOOR_MS,
  searchCapacity,
} from '../../scripts/load/capacity-search.js'

/**
 * A machine whose p99 is `serviceMs` at ease and grows as a queue's does near `capacityPerS` (M/M/1: the time in the
 * system over 1 minus the load, up to a load of 0.95); past that, its queue grows through a step of 5 s, the last
 * calls waiting for the excess to drain, and it skips turns.
 */
function machine(capacityPerS: number, serviceMs: number): (askedPerS: number) => Promise<CapacityStep> {
  return async (askedPerS) => {
    const load = askedPerS / capacityPerS
    const turns = Math.round(askedPerS * 5)
    const p99Ms = load < 0.95 ? serviceMs / (1 - load) : serviceMs / 0.05 + (load - 0.95) * 5_000
    return {
      askedPerS,
      madePerS: Math.min(askedPerS, capacityPerS),
      skipped: load < 1 ? 0 : Math.round(turns * 0.1 * (1 - 1 / load)),
      turns,
      failed: 0,
      p50Ms: p99Ms / 4,
      p99Ms,
    }
  }
}

it('finds the rate where the p99 turns up, within the bracket, from above or below the first step', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 20, max: 20_000 }),
      fc.double({ min: 7, max: 200, noNaN: true }),
      async (capacityPerS, serviceMs) => {
        const found = await searchCapacity(machine(capacityPerS, serviceMs), 200, 40_000)
        // The reference is taken at ease: at a rate where the p99 is close to the calls' own time.
        expect(found.referenceP99Ms).toBeLessThanOrEqual(1.5 * serviceMs)
        // The knee of this machine: where its p99 reaches KNEE_FACTOR times the reference's (or the floor).
        expect(found.kneeMs).toBe(Math.max(KNEE_FACTOR * found.referenceP99Ms, KNEE_FLOOR_MS))
        const knee = capacityPerS * (1 - serviceMs / found.kneeMs)
        expect(found.notCarriedPerS).not.toBeNull()
        expect(found.perS).toBeLessThanOrEqual(knee * 1.05)
        expect(found.notCarriedPerS!).toBeGreaterThan(knee * 0.95)
        // Bracketed within 1.2x, or stopped by the bisections' bound (2x bracket / 3 bisections: 1.09x at most).
        expect(found.notCarriedPerS! / found.perS).toBeLessThanOrEqual(BRACKET * 1.01)
        expect(found.steps.length).toBeLessThanOrEqual(18)
      },
    ),
    { numRuns: 200 },
  )
})

it('stops at the ceiling when the machine carries it, and says so', async () => {
  const found = await searchCapacity(machine(1_000_000, 5), 200, 3_600)
  expect(found.perS).toBe(3_600)
  expect(found.notCarriedPerS).toBeNull()
  expect(found.steps.map((step) => step.askedPerS)).toEqual([200, 100, 400, 800, 1_600, 3_200, 3_600])
})
