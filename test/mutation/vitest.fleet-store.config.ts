import { fileURLToPath } from 'node:url'
import { configDefaults, defineConfig } from 'vitest/config'
import { suite } from '../../vitest.config.js'

// The suite of `npm run mutation:fleet-store` (stryker.fleet-store.config.mjs): the tests that drive src/fleet and
// src/store in-process, and the trust rules (src/trust) that the fleet and a client apply. The fleet's and the stores'
// tests, the two client tests of test/core that reach src/trust outside the fleet (a refresh answer's fields, a remote
// http OAuth server) and its proxy test (the code exchange and a fleet through a forward proxy), the store contract,
// the RedisStore tests, the commands per call, the store on a Sentinel group, the store's inventory and replicas that
// fall short, the Redis ones against throwaway servers, clusters and sentinels they start from this process (about 60 s
// in all). Left out: the Redis tests that run the store in child processes (test/redis/multi-process.test.ts, the
// outage test's workers) or the fleet load script's (test/scripts/load-fleet.test.ts), where Stryker cannot switch
// mutants, and the Sentinel failover and the read-only Redis test (32 s and 23 s of waiting, which every surviving
// mutant they cover would wait again), the property suite of store faults (45 s) and the bound of the fleet's
// remembered refusals (test/fleet/refusal-memory.test.ts, over 4 000 proofs). The fault it found in the store's calls
// runs (test/faults/read-fails-under-lock.test.ts). A mutant that only those catch survives here.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    ...suite,
    include: [
      'test/fleet/**/*.test.ts',
      'test/store/**/*.test.ts',
      'test/faults/read-fails-under-lock.test.ts',
      // What src/trust decides for a client outside a fleet: a refresh answer's fields, a remote http OAuth server.
      'test/core/durability.test.ts',
      'test/core/local-mistakes.test.ts',
      // The code exchange's and the fleet's requests through a forward proxy.
      'test/core/proxy.test.ts',
      'test/redis/store-contract.test.ts',
      'test/redis/redis-store.test.ts',
      'test/redis/commands-per-call.test.ts',
      'test/redis/sentinel-store.test.ts',
      'test/redis/redis-inventory.test.ts',
      'test/redis/replicas-missing.test.ts',
    ],
    // Over 4 000 proofs (up to a minute on a loaded machine), which every surviving mutant it covers would run again.
    exclude: [...configDefaults.exclude, 'test/fleet/refusal-memory.test.ts'],
  },
})
