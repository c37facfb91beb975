import { parse } from 'qs'

/** A parsed PHP-style parameter tree: nested plain objects (and arrays after `phpArrays`). */
export type PhpParams = Record<string, unknown>

/**
 * Bounds on what one body may build, so that a hostile or broken body costs the emulator little: PHP's own nesting
 * limit (`max_input_nesting_level`), a cap on fields, and list indices past which a key stays a map key.
 */
export const PHP_QUERY_LIMITS = { depth: 64, parameterLimit: 10_000, arrayLimit: 1_000 } as const

/**
 * Parse a query string PHP-style (`parse_str`) with `qs`: bracket keys build nested maps, `+` is a space, the last
 * of repeated names wins, maps whose keys are exactly `0..n-1` become lists (a gap leaves a map keyed by index).
 * Names that would reach `Object.prototype` (`__proto__`, `constructor`, ...) are dropped. `transform` may replace
 * each decoded value (used by the batch `$result[...]` substitution).
 */
export function parsePhpQuery(query: string, transform?: (value: string) => unknown): PhpParams {
  if (query === '') return {}
  const parsed = parse(query, {
    ...PHP_QUERY_LIMITS,
    allowPrototypes: false,
    allowSparse: true,
    duplicates: 'last',
  })
  return phpValue(parsed, transform) as PhpParams
}

/** A value of `qs`'s tree in PHP's shape; `transform` applied to each string. */
function phpValue(value: unknown, transform: ((value: string) => unknown) | undefined): unknown {
  if (typeof value === 'string') return transform ? transform(value) : value
  if (value === null || typeof value !== 'object') return value
  // Sparse lists (`a[1]=x`) and maps alike: PHP keeps the keys it was given.
  const keys = Object.keys(value)
  const converted: Record<string, unknown> = {}
  for (const key of keys) converted[key] = phpValue((value as Record<string, unknown>)[key], transform)
  return phpArrays(converted)
}

/** Turn a plain object whose keys are exactly `0..n-1` into an array, as PHP lists are; any other value stays. */
function phpArrays(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const keys = Object.keys(value)
  if (keys.length > 0 && keys.every((key, index) => key === String(index))) {
    return keys.map((key) => (value as Record<string, unknown>)[key])
  }
  return value
}

/**
 * Serialise an ordered map the way PHP's `json_encode` does: empty → `[]`, keys `0..n-1` in order → a JSON array,
 * anything else → an object.
 */
export function phpMap(entries: ReadonlyArray<readonly [string, unknown]>): unknown {
  if (entries.length === 0) return []
  if (entries.every(([key], index) => key === String(index))) return entries.map(([, value]) => value)
  const out: Record<string, unknown> = {}
  for (const [key, value] of entries) out[key] = value
  return out
}

/** PHP `(bool)` cast of a request value: `0`, `'0'`, `''`, `false`, `null`, undefined and `[]` are false. */
export function phpBool(value: unknown): boolean {
  if (
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    value === '0'
  ) {
    return false
  }
  if (Array.isArray(value)) return value.length > 0
  return true
}
