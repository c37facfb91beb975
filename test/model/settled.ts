/** How a promise ended, kept so a test can look at it later without an unhandled rejection. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown }

/** Starts watching `promise` now; the result says how it ended. */
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  )
}
