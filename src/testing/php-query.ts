/** A parsed PHP-style parameter tree: nested plain objects (and arrays after `phpArrays`). */
export type PhpParams = Record<string, unknown>

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Decode one `application/x-www-form-urlencoded` component the way PHP does (`+` is a space); malformed stays raw. */
export function decodeFormComponent(text: string): string {
  const spaced = text.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced
  }
}

/** Split a PHP parameter name into its path: `filter[>ID][0]` → `['filter', '>ID', '0']`, `a[]` → `['a', '']`. */
export function splitPhpKey(name: string): string[] {
  const open = name.indexOf('[')
  if (open <= 0) return [name]
  const path = [name.slice(0, open)]
  let rest = name.slice(open)
  while (rest.startsWith('[')) {
    const close = rest.indexOf(']')
    if (close < 0) break
    path.push(rest.slice(1, close))
    rest = rest.slice(close + 1)
  }
  return path
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Put `value` into `target` at the PHP bracket path of `name` (`[]` appends the next integer index). */
export function setPhpValue(target: PhpParams, name: string, value: unknown): void {
  const path = splitPhpKey(name)
  if (path.some((part) => FORBIDDEN_KEYS.has(part))) return
  let node: Record<string, unknown> = target
  for (let i = 0; i < path.length; i++) {
    let key = path[i] ?? ''
    if (key === '' && i > 0) key = String(nextIndex(node))
    if (i === path.length - 1) {
      node[key] = value
      return
    }
    const child = node[key]
    if (isRecord(child)) {
      node = child
    } else {
      const created: Record<string, unknown> = {}
      node[key] = created
      node = created
    }
  }
}

function nextIndex(node: Record<string, unknown>): number {
  let max = -1
  for (const key of Object.keys(node)) {
    if (/^(0|[1-9]\d*)$/.test(key)) max = Math.max(max, Number(key))
  }
  return max + 1
}

/**
 * Parse a query string PHP-style (`parse_str`): bracket keys build nested maps, integer-keyed maps 0..n-1 become
 * arrays. `transform` may replace each decoded value (used by the batch `$result[...]` substitution).
 */
export function parsePhpQuery(query: string, transform?: (value: string) => unknown): PhpParams {
  const out: PhpParams = {}
  if (query === '') return out
  for (const pair of query.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const rawKey = eq < 0 ? pair : pair.slice(0, eq)
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1)
    const key = decodeFormComponent(rawKey)
    if (key === '') continue
    const value = decodeFormComponent(rawValue)
    setPhpValue(out, key, transform ? transform(value) : value)
  }
  return phpArrays(out) as PhpParams
}

/** Recursively turn plain objects whose keys are exactly `0..n-1` into arrays, as PHP lists are. */
export function phpArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(phpArrays)
  if (!isRecord(value)) return value
  const keys = Object.keys(value)
  const converted: Record<string, unknown> = {}
  for (const key of keys) converted[key] = phpArrays(value[key])
  if (keys.length > 0 && keys.every((key, index) => key === String(index))) {
    return keys.map((key) => converted[key])
  }
  return converted
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
