// ky is loaded with the first request, not with `import 'portal-oauth'`: loading it makes Node load its own fetch
// (its bundled undici, which ky reads at load time), the largest part of the package's cold start. A process that
// imports the package and never calls (a worker that only reads the token state, a CLI's `--help`) does not pay it.
import type { HTTPError } from 'ky'

/** The ky module. */
export type KyModule = typeof import('ky')

let loaded: KyModule | undefined
let loading: Promise<KyModule> | undefined

/** ky, loaded once; resolves at once after the first load. */
export function loadKy(): Promise<KyModule> {
  loading ??= import('ky').then((module) => {
    loaded = module
    return module
  })
  return loading
}

/** Whether `error` is ky's `HTTPError` (none exists before ky is loaded). */
export function isKyHttpError(error: unknown): error is HTTPError {
  try {
    return loaded !== undefined && error instanceof loaded.HTTPError
  } catch {
    // A thrown Proxy whose prototype trap throws is no HTTPError.
    return false
  }
}

/** Whether `error` is ky's `TimeoutError` (none exists before ky is loaded). */
export function isKyTimeout(error: unknown): boolean {
  try {
    return loaded !== undefined && error instanceof loaded.TimeoutError
  } catch {
    return false
  }
}
