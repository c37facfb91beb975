// Mutation testing of the folders that hold the client's promises (`npm run mutation`, Node >= 22).
// docs/testing.md says how to run it and what the last run found.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner', './test/mutation/ignore-log-lines.mjs'],
  // The arguments of log lines (see that file for why).
  ignorers: ['log-lines'],
  mutate: [
    'src/auth/**/*.ts',
    'src/http/**/*.ts',
    'src/limits/**/*.ts',
    'machines/**/*.ts',
    '!machines/index.ts',
  ],
  coverageAnalysis: 'perTest',
  // Stryker rewrites tsconfig.json paths with the TypeScript JS API, which TypeScript 7 no longer ships. Nothing
  // here needs it (no project references, no type checker plugin), so it is pointed at a file that does not exist.
  tsconfigFile: 'test/mutation/no-such-tsconfig.json',
  // Two cores are shared by everyone on the machine.
  concurrency: 1,
  // Kept in an ignored cache folder: a later run re-tests only the mutants whose code or covering tests changed.
  // docs/testing.md says how a fresh clone restores the state of the last recorded run.
  incremental: true,
  incrementalFile: '.cache/stryker/incremental.json',
  // Scratch space and the Node binaries under .tmp/ stay out of the sandbox copy.
  tempDirName: '.tmp/stryker',
  ignorePatterns: ['.tmp', 'dist', 'coverage', '.demo', 'bench'],
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: '.tmp/mutation/report.html' },
  jsonReporter: { fileName: '.tmp/mutation/report.json' },
  thresholds: { high: 90, low: 80, break: null },
  timeoutMS: 10_000,
  cleanTempDir: 'always',
}
