import { createRequire } from 'node:module'

/** Used when the package's own manifest cannot be read (a bundle that left it behind). */
const UNKNOWN_VERSION = '0.0.0-unknown'

/** The version in the package's `package.json`, read once; `package.json` is the only place it is written. */
export const PACKAGE_VERSION: string = readOwnVersion()

/** `User-Agent` of every request the package sends. */
export const USER_AGENT = `portal-oauth/${PACKAGE_VERSION}`

function readOwnVersion(): string {
  try {
    // The package's own name resolves to itself (its `exports` lists `./package.json`), from `src/` and `dist/` alike.
    const manifest: unknown = createRequire(import.meta.url)('portal-oauth/package.json')
    const version = (manifest as { version?: unknown } | null)?.version
    return typeof version === 'string' && version !== '' ? version : UNKNOWN_VERSION
  } catch {
    return UNKNOWN_VERSION
  }
}
