import { PreparedSecrets } from './redact-secrets.js'
import { readThrown, type TextRedactor, type ThrownSnapshot } from './thrown-snapshot.js'

/** What the error mapper needs to keep secrets out: the instance's secret registry. */
export interface SecretRedactor extends TextRedactor {
  /** `value` read once into a redacted snapshot; an object read before gives the snapshot taken then. */
  snapshot(value: unknown): ThrownSnapshot
}

/** Knows no secret: finds only what a text labels as one. */
const LABELS_ONLY = new PreparedSecrets([])

/**
 * A redactor that knows no secret, for places that hold none: values under secret-named keys, and values a text
 * labels with a secret's name (`"refresh_token":"..."`), are still replaced, and a value is still read only once per
 * snapshot.
 */
export const NO_SECRETS: SecretRedactor = {
  redactText: (text) => LABELS_ONLY.redactText(text),
  snapshot: (value) => readThrown(value, NO_SECRETS),
}

/**
 * Any thrown value as callers get it, read once (see {@link SecretRedactor.snapshot}) for the channels, spans,
 * metrics and log lines that describe it. An `Error` is the same object (spec 7: rethrown unchanged), whatever it
 * holds: it is the thrower's own, and only the snapshot is ever published. Anything else becomes
 * `Error('Strange error: <text>')` (spec 7) whose `cause` is the raw value itself (kept) and whose text is redacted.
 * Never throws: `undefined`, Symbols, functions, BigInts, cycles, throwing getters and Proxies whose traps throw all
 * map.
 */
export function toError(value: unknown, secrets: SecretRedactor): Error {
  const read = secrets.snapshot(value)
  if (read.isError) return value as Error
  // Its snapshot, when published, finds the value's own under `cause`: the value is not read twice.
  return new Error(`Strange error: ${read.text()}`, { cause: value })
}
