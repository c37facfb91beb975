/** What the error mapper needs to keep secrets out: the instance's secret registry, or {@link NO_SECRETS}. */
export interface SecretRedactor {
  /** `text` with every known secret replaced. */
  redactText(text: string): string
  /** Whether a known secret (or a value under a secret key) appears anywhere in `value`. */
  holdsSecret(value: unknown): boolean
  /** A copy of `value` with secrets redacted (used only when {@link holdsSecret} says it holds one). */
  redactValue(value: unknown): unknown
  /** `error` itself when it holds no secret; otherwise a redacted copy with the same prototype. */
  redactError<E extends Error>(error: E): E
}

/** A redactor that knows no secret: for places that hold none (a store's own failures). */
export const NO_SECRETS: SecretRedactor = {
  redactText: (text) => text,
  holdsSecret: () => false,
  redactValue: (value) => value,
  redactError: (error) => error,
}

/** Longest description of a thrown value kept in a message. */
const MAX_TEXT = 2_000

/**
 * Any thrown value as callers, log lines and diagnostics channels get it. An `Error` holding no secret is the same
 * object; one holding a secret is a redacted copy with the same prototype. Anything else becomes
 * `Error('Strange error: <text>')` (spec 7) whose `cause` is the raw value itself, or a redacted copy when it holds
 * a secret. Never throws: `undefined`, Symbols, functions, BigInts, cyclic objects and throwing getters all map.
 */
export function toError(value: unknown, secrets: SecretRedactor = NO_SECRETS): Error {
  if (isError(value)) return secrets.redactError(value)
  const text = secrets.redactText(describe(value))
  let cause = value
  try {
    if (secrets.holdsSecret(value)) cause = secrets.redactValue(value)
  } catch {
    // A value that cannot even be inspected cannot be shown safely: keep only its description.
    cause = text
  }
  return new Error(`Strange error: ${text}`, { cause })
}

/** `instanceof Error`, which a hostile proxy may make throw. */
function isError(value: unknown): value is Error {
  try {
    return value instanceof Error
  } catch {
    return false
  }
}

/** A thrown value as text: JSON where it can be written, otherwise what `String()` says of it. */
export function describe(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return clip(value)
    case 'undefined':
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value)
    case 'symbol':
      return value.toString()
    case 'function':
      return `[function ${value.name || 'anonymous'}]`
  }
  try {
    const json = JSON.stringify(value)
    if (typeof json === 'string') return clip(json)
  } catch {
    // Cyclic, a BigInt inside, or a getter that throws: say what String() says.
  }
  try {
    return clip(String(value))
  } catch {
    return '[object without a text form]'
  }
}

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}...` : text
}
