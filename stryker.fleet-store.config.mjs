// Mutation testing of the fleet, the token stores and the trust rules (`npm run mutation:fleet-store`, Node >= 22),
// apart from stryker.config.mjs: its suite (test/mutation/vitest.fleet-store.config.ts) is the tests that drive
// src/fleet and src/store in-process, the RedisStore ones included, and those that reach src/trust from a client.
// docs/testing.md says how to run it.
import base from './stryker.config.mjs'

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'test/mutation/vitest.fleet-store.config.ts' },
  mutate: ['src/fleet/**/*.ts', 'src/store/**/*.ts', 'src/trust/**/*.ts'],
  // Mutants covered only outside any test (module-level values, code only beforeAll and afterAll hooks run) are not
  // run: each would run the whole suite, over a minute. docs/testing.md counts them.
  ignoreStatic: true,
  // Its own file: the results of a run depend on the suite it ran.
  incrementalFile: '.cache/stryker/incremental-fleet-store.json',
  htmlReporter: { fileName: '.tmp/mutation/fleet-store/report.html' },
  jsonReporter: { fileName: '.tmp/mutation/fleet-store/report.json' },
}
