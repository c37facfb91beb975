import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const DIST = new URL('../../dist/src/', import.meta.url)

if (!existsSync(fileURLToPath(new URL('index.js', DIST)))) {
  throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)')
}

/**
 * The package as users run it: the build in dist/ (sources run through a TypeScript loader carry its helpers, which
 * cost CPU per call), typed from the sources.
 */
export const lib: typeof import('../../src/index.js') = await import(new URL('index.js', DIST).href)

/** `portal-oauth/testing` from the build: its emulator child process runs without a TypeScript loader too. */
export const testing: typeof import('../../src/testing/index.js') = await import(
  new URL('testing/index.js', DIST).href
)

/** The default adapter's module from the build, for the figure that measures ky over it without the client. */
export const adapter: typeof import('../../src/http/undici-fetch.js') = await import(
  new URL('http/undici-fetch.js', DIST).href
)

/** `portal-oauth/redis` from the build: `RedisStore`. */
export const redis: typeof import('../../src/redis.js') = await import(new URL('redis.js', DIST).href)

/** The transport's hook helper from the build, which the ky variants of the CPU figure run as the client does. */
export const retryClone: typeof import('../../src/http/retry-clone.js') = await import(
  new URL('http/retry-clone.js', DIST).href
)
