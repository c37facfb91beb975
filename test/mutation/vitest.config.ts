import { fileURLToPath } from 'node:url'
import { defineConfig, mergeConfig } from 'vitest/config'
import { ALL_TESTS, suite } from '../../vitest.config.js'

// The suite as `npm run mutation` runs it: the tests that drive the mutated folders (src/auth, src/http,
// src/limits, machines/) in-process. Left out: the emulator's own tests (they never load those folders), the
// packed-package test (it builds dist/ and runs it in another process, where Stryker cannot switch mutants),
// the process-exit test and the multi-process store tests (child processes, same reason), the store contract (it
// drives src/store alone, which is not mutated), and the shortest model paths: they spend 40 s of the suite's 78 s
// waiting out real refresh and callback timeouts, and a surviving mutant runs every test that covers it. The simple
// model paths, and the timeout tests of test/core/durability.test.ts, still run. The RedisStore tests are left out
// too: they drive src/store, and under Stryker's runner (every file in one process) one of them counts the
// connections of a server that other files' clients share. The instances sharing a store still run, on MemoryStore
// (test/fleet/shared-store.test.ts). The other Redis tests (outages, failovers, commands per call) and the fleet
// load script's test go too: they start servers and child processes, drive src/store and the fleet, and took
// 117 s of the suite's 195 s, which every surviving mutant they cover would run again. The property suite of store
// faults goes for the same reason: 45 s of runs that cover most of src/auth; the tests of each fault it found stay.
export default mergeConfig(
  defineConfig({ test: { ...suite, include: [ALL_TESTS] } }),
  defineConfig({
    root: fileURLToPath(new URL('../..', import.meta.url)),
    test: {
      exclude: [
        'test/emulator/**',
        'test/package/**',
        'test/core/process-exit.test.ts',
        'test/redis/**',
        'test/scripts/load-fleet.test.ts',
        'test/model/access-token.test.ts',
        'test/faults/store-faults.property.test.ts',
        '**/node_modules/**',
      ],
    },
  }),
)
