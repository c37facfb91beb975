import { redactedCopy } from './redacted-copy.js'
import type { TextRedactor, ThrownSnapshot } from './thrown-snapshot.js'

/** What the error mapper needs to keep secrets out: the instance's secret registry. */
export interface SecretRedactor extends TextRedactor {
  /** `value` read once into a redacted snapshot; an object read before gives the snapshot taken then. */
  snapshot(value: unknown): ThrownSnapshot
  /** Makes `snapshot` the one of `error` too (a copy made from it): it is not read again. */
  remember(error: object, snapshot: ThrownSnapshot): void
}

/**
 * Any thrown value as callers get it, read once (see {@link SecretRedactor.snapshot}). An `Error` in which nothing
 * read holds a secret is the same object (spec 7: rethrown unchanged); one that does is a redacted copy with the same
 * prototype. Anything else becomes `Error('Strange error: <text>')` (spec 7) whose `cause` is the raw value itself,
 * or its redacted data when it holds a secret. Never throws: `undefined`, Symbols, functions, BigInts, cycles,
 * throwing getters and Proxies whose traps throw all map.
 */
export function toError(value: unknown, secrets: SecretRedactor): Error {
  const read = secrets.snapshot(value)
  if (read.isError) {
    if (!read.heldSecret) return value as Error
    const copy = redactedCopy(read)
    secrets.remember(copy, read)
    return copy
  }
  return new Error(`Strange error: ${read.text()}`, { cause: read.heldSecret ? read.data() : value })
}
