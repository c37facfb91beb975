import { describe, expect, it } from 'vitest'
import { runKillRounds } from '../../scripts/dev/sentinel-kill-rounds.js'
import { redisInstalled } from './redis-server.js'

/**
 * Failovers in a row with the master killed; `PORTAL_OAUTH_FAILOVER_ROUNDS` changes it (the long run is
 * `npx tsx scripts/dev/sentinel-kill-rounds.ts 30`). Slow: a Sentinel group, four processes, 5 to 15 s a failover.
 */
const ROUNDS = Number(process.env.PORTAL_OAUTH_FAILOVER_ROUNDS ?? 3)

describe.skipIf(!redisInstalled)('the master killed while the refresh is at the OAuth server', () => {
  it(
    `${ROUNDS} kill failovers in a row, four processes on ioredis through the sentinels: each settles on the newest pair, one refresh request per expiry, no invalid_grant`,
    async () => {
      const result = await runKillRounds(ROUNDS)
      expect(result.rounds.map((round) => round.settledMs !== null)).toEqual(
        Array.from({ length: ROUNDS }, () => true),
      )
      expect(result.invalidGrant).toBe(0)
      expect(result.refreshes).toBe(ROUNDS)
      expect(result.callsFailed.invalid_grant ?? 0).toBe(0)
      expect(result.callsOk).toBeGreaterThan(0)
    },
    90_000 * ROUNDS,
  )
})
