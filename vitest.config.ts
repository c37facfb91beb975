import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // `vitest --typecheck`: the compile-time checks (`expectTypeOf`, `@ts-expect-error`); `npm run typecheck` runs them too.
    typecheck: { include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // The second one prints one line when the Redis tests were skipped for want of redis-server.
    reporters: ['default', './test/redis/skip-reporter.ts'],
  },
})
