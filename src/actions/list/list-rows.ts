/** The rows of a list answer: `result` itself, or `result[rowsKey]` for methods that wrap them. */
export function readRows(result: unknown, rowsKey: string | undefined): unknown[] | undefined {
  if (rowsKey === undefined) return Array.isArray(result) ? result : undefined
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return undefined
  const rows = (result as Record<string, unknown>)[rowsKey]
  return Array.isArray(rows) ? rows : undefined
}
