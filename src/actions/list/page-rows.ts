/** An id a page can be continued from: a finite number or a non-empty string. */
export type RowId = number | string

/** The usable id at `key` of `row`, or `undefined` when the row has none (missing, null, empty, not a scalar). */
export function readRowId(row: unknown, key: string): RowId | undefined {
  if (row === null || typeof row !== 'object') return undefined
  const value = (row as Record<string, unknown>)[key]
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string') return value.trim() === '' ? undefined : value
  return undefined
}

function asNumber(id: RowId): number | undefined {
  const n = typeof id === 'number' ? id : Number(id)
  return Number.isFinite(n) ? n : undefined
}

/**
 * Whether `next` lies past `previous` in the list's order. Numeric ids (v2 sends them as strings) compare as
 * numbers; other ids only have to differ.
 */
export function isPast(previous: RowId, next: RowId, descending: boolean): boolean {
  const a = asNumber(previous)
  const b = asNumber(next)
  if (a !== undefined && b !== undefined) return descending ? b < a : b > a
  return String(previous) !== String(next)
}

/** The rows of a list answer: `result` itself, or `result[rowsKey]` for methods that wrap them. */
export function readRows(result: unknown, rowsKey: string | undefined): unknown[] | undefined {
  if (rowsKey === undefined) return Array.isArray(result) ? result : undefined
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return undefined
  const rows = (result as Record<string, unknown>)[rowsKey]
  return Array.isArray(rows) ? rows : undefined
}
