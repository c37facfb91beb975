/** The catalogue's method names, for completion and for "did you mean". */

/** Every documented method name of one API version, or of both when `api` is absent, sorted, each once. */
export async function catalogueMethods(api?: 'v2' | 'v3'): Promise<string[]> {
  const { V2_METHODS, V3_METHODS } = await import('../catalogue/methods.generated.js')
  const tables = api === 'v2' ? [V2_METHODS] : api === 'v3' ? [V3_METHODS] : [V2_METHODS, V3_METHODS]
  return [...new Set(tables.flatMap((table) => Object.keys(table)))].sort()
}

/** Edits (insert, delete, replace one character, swap two neighbours) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  return rows[a.length]![b.length]!
}

/**
 * The catalogue's names of `api` closest to `method` (at most three edits away, a third of its length at most), the
 * closest first; none when `method` is a documented name itself.
 */
export async function similarMethods(method: string, api: 'v2' | 'v3'): Promise<string[]> {
  const names = await catalogueMethods(api)
  const wanted = method.toLowerCase()
  if (names.includes(wanted)) return []
  const limit = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)))
  const near = names
    .map((name) => ({ name, edits: distance(wanted, name.toLowerCase()) }))
    .filter(({ edits }) => edits <= limit)
  const closest = Math.min(...near.map(({ edits }) => edits))
  return near
    .filter(({ edits }) => edits === closest)
    .slice(0, 3)
    .map(({ name }) => name)
}
