import { describe, expect, it } from 'vitest'
import { MAX_REFRESH_REQUESTS_PER_BURST, runSoak } from '../../scripts/dev/soak-lib.js'

describe('fault soak, short run', () => {
  it('3 bursts x 60 calls with 10 % faults: no pair lost, at most 3 refresh requests per burst', async () => {
    const report = await runSoak({ bursts: 3, calls: 60, faultRate: 0.1, seed: 7 })
    expect(report.calls).toBe(180)
    expect(report.pairsLost).toBe(0)
    expect(report.maxRefreshRequests).toBeLessThanOrEqual(MAX_REFRESH_REQUESTS_PER_BURST)
    expect(report.bursts.every((burst) => burst.refreshRequests >= 1)).toBe(true)
    expect(report.unsurvivable).toEqual({
      refreshRequests: 2,
      tokenState: 'dead',
      sameErrorForEveryCall: true,
    })
  })
})
