/** Percent-encoding of RFC 3986: `encodeURIComponent` plus `!'()*`. */
export function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

function appendPairs(pairs: string[], key: string, value: unknown): void {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return
  if (value === null) {
    pairs.push(`${key}=`)
  } else if (typeof value === 'boolean') {
    pairs.push(`${key}=${value ? 'true' : 'false'}`)
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    pairs.push(`${key}=${encodeRfc3986(String(value))}`)
  } else if (value instanceof Date) {
    pairs.push(`${key}=${encodeRfc3986(value.toISOString())}`)
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      appendPairs(pairs, `${key}%5B${index}%5D`, item)
    })
  } else if (typeof value === 'object') {
    for (const [name, item] of Object.entries(value))
      appendPairs(pairs, `${key}%5B${encodeRfc3986(name)}%5D`, item)
  }
}

/**
 * Parameters as a PHP query string (contract 6.1): nested objects and arrays in bracket notation with indices
 * (`filter[>ID]=5`, `select[0]=ID`), every part percent-encoded per RFC 3986, booleans as `true` / `false`, null as
 * `key=`. Like PHP's `http_build_query`, empty arrays and objects send nothing. `$result[...]` references are
 * encoded like any value; the portal decodes them before it substitutes.
 */
export function toPhpQuery(params: Record<string, unknown>): string {
  const pairs: string[] = []
  for (const [name, value] of Object.entries(params)) appendPairs(pairs, encodeRfc3986(name), value)
  return pairs.join('&')
}

/** One `cmd` value of a v2 batch: `method?query`, or the bare method when there are no parameters. */
export function toBatchCommand(method: string, params: Record<string, unknown>): string {
  const query = toPhpQuery(params)
  return query === '' ? method : `${method}?${query}`
}
