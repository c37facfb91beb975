/** The median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  if (sorted.length === 0) throw new Error('median of an empty list')
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** A number with a fixed count of decimals, for tables. */
export function fixed(value: number, digits = 0): string {
  return value.toFixed(digits)
}

/** Bytes as KB or MB with one decimal. */
export function bytes(value: number): string {
  return Math.abs(value) >= 1024 * 1024
    ? `${(value / 1024 / 1024).toFixed(1)} MB`
    : `${(value / 1024).toFixed(1)} KB`
}
