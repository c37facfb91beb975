import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runSpendScenario, spendScenario } from './spend-once.js'

/**
 * Runs of the property, one to two seconds each. `PORTAL_OAUTH_SPEND_RUNS` changes it (thousands for a long search);
 * `PORTAL_OAUTH_SPEND_SEED` fixes the seed, to replay the runs of one fast-check printed with a failure.
 */
const RUNS = Number(process.env.PORTAL_OAUTH_SPEND_RUNS ?? 20)
const SEED =
  process.env.PORTAL_OAUTH_SPEND_SEED === undefined ? undefined : Number(process.env.PORTAL_OAUTH_SPEND_SEED)
/** Ten seconds a run at most, and three minutes of shrinking a failure: then fast-check stops with what it has. */
const LIMIT_MS = RUNS * 10_000 + 180_000

/** One run: the scenario's findings (a token presented twice, a call left failing, ...), none expected. */
async function noFindings(scenario: Parameters<typeof runSpendScenario>[0]): Promise<void> {
  expect(await runSpendScenario(scenario)).toEqual([])
}

const property = fc.asyncProperty(spendScenario, noFindings)

/**
 * The property for a replay: a replay runs the case its path names first, then every later sibling of that case
 * (fast-check goes on through the rest of the shrink from there, whatever `numRuns`), up to 44 s for one of those
 * below. Only the named case is run here; the siblings after it pass at once.
 */
function namedCaseOnly(): typeof property {
  let ran = false
  return fc.asyncProperty(spendScenario, async (scenario) => {
    if (ran) return
    ran = true
    await noFindings(scenario)
  })
}

describe('a refresh token is presented to the OAuth server once, whatever order the store and the server answer in', () => {
  it(
    "property: two instances and a fleet on one store; a scheduler orders the store's answers, the OAuth server's and time passing",
    async () => {
      await fc.assert(property, {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        plugins: [fc.interruptAfterTimeLimit(LIMIT_MS)],
      })
    },
    LIMIT_MS + 60_000,
  )

  /**
   * Counterexamples the property found on the code before their fix, replayed by seed and path (each fails there):
   * the first is a save under the lock that never answers (the pair reached the store only after the lock's TTL), the
   * second `destroy()` cutting off the request of an attempt that had timed out, and giving the lock back at once; the
   * third an instance destroyed while its attempt held the lock, had marked the refresh token and sent nothing, whose
   * release the store refused: its mark outlived it, and no refresh could present the token until the mark's TTL.
   * The fourth is the harness's own: a call right after the faults joined a refresh whose attempts began while its
   * instance was cut off from the store, and failed with it (the run now waits for such attempts to end). In the
   * fifth a refresh took over the lock kept for a pair the store had not taken, ended without a new pair and released
   * the lock, ending the spending mark with it: the other instance loaded the spent pair and presented it again.
   */
  it.each([
    { seed: 21, path: '6:1:0:3:2:2:2' },
    { seed: 23, path: '3:2:1:0:1:1:1:5' },
    { seed: -1501856141, path: '18:3:1:12:12:16:20:20:17:22:21:27:29:22' },
    { seed: 607950449, path: '28:1:0:9:5:14:3:8:15:7:9:7:9:2' },
    { seed: 1527307028, path: '138:4:14:17:20:22:23:23:24:24:25:26:32:35:34:34' },
  ])(
    'found with seed $seed, path $path',
    async ({ seed, path }) => {
      await fc.assert(namedCaseOnly(), { seed, path, numRuns: 1, endOnFailure: true })
    },
    60_000,
  )
})
