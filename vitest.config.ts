import { defineConfig, type ViteUserConfig } from 'vitest/config'

/**
 * The slow tier, `npm run test:slow`: the files that would take the README's `npm test` past five minutes on a
 * 2-core machine. They guard as much as the rest and CI runs them (`.ci/run`); they are set apart by what they cost.
 * Anything not named here is in the fast tier, `npm test`.
 */
const SLOW = [
  // Throwaway Redis servers, clusters and sentinels per file; a frozen or killed server, failovers, worker processes.
  'test/redis/**/*.test.ts',
  // Store faults and their properties (interleavings through fc.scheduler), each refresh token spent once.
  'test/faults/**/*.test.ts',
  // The soak: calls and refreshes for a stretch of minutes.
  'test/soak/**/*.test.ts',
  // The machines' model-based paths, hundreds of generated ones.
  'test/model/**/*.test.ts',
  // `npm run load:fleet` end to end: the package built, worker processes.
  'test/scripts/load-fleet.test.ts',
  // The heap 5 000 held portals keep, read after full collections.
  'test/fleet/held-portal-memory.test.ts',
  // The bound of a fleet's remembered refusals: over 4 000 proofs.
  'test/fleet/refusal-memory.test.ts',
  // The editor's completions: TypeScript's language service over the whole catalogue (22 s to build at load 5, past
  // its 120 s hook timeout at load 20).
  'test/types/completions.test.ts',
  // The type instantiations of a completion while a call is written: the same language service (30 s at load 10).
  'test/types/completion-work.test.ts',
  // `npm pack`, then consumer projects type-checked and run on the tarball.
  'test/package/pack.test.ts',
  // Every TypeScript block of the docs type-checked as a consumer of the built package, each runnable one run.
  'test/docs/snippets.test.ts',
  // The command line as a child process under tsx, several to dozens of runs a file (one to three seconds each);
  // fleet.test.ts on a throwaway Redis too.
  'test/cli/call.test.ts',
  'test/cli/call-all.test.ts',
  'test/cli/docs.test.ts',
  'test/cli/emulator.test.ts',
  'test/cli/fleet.test.ts',
  'test/cli/main.test.ts',
  'test/cli/messages.test.ts',
  'test/cli/shared-pair.test.ts',
  'test/cli/types.test.ts',
  'test/cli/unreachable.test.ts',
]

/** Every test file of the suite. */
export const ALL_TESTS = 'test/**/*.test.ts'

/** What every run of the suite shares: both tiers, and the mutation suites (test/mutation/). */
export const suite = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // `vitest --typecheck`: the compile-time checks (`expectTypeOf`, `@ts-expect-error`); `npm run typecheck` runs them too.
  typecheck: { include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  // The second one prints one line when the Redis tests were skipped for want of redis-server.
  reporters: ['default', './test/redis/skip-reporter.ts'],
} satisfies ViteUserConfig['test']

export default defineConfig({
  test: {
    ...suite,
    projects: [
      // The fast tier's files share their worker's modules (no fresh module graph per file): importing the library,
      // ky, XState and the catalogue once per worker instead of once per file takes the tier from 342 s to 207 s side
      // by side on 2 loaded cores. Every file starts and closes its own emulators, clients and timers.
      { extends: true, test: { name: 'fast', include: [ALL_TESTS], exclude: SLOW, isolate: false } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
})
