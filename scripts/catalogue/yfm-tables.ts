/** One YFM table (`#| ... |#`): its rows, each a list of cell texts, in page order. */
export interface YfmTable {
  /** Offset of the table's `#|` in the page text the table was read from. */
  readonly start: number
  /** Rows after the header row (`|| **Name** ... ||`), each cell trimmed. */
  readonly rows: readonly (readonly string[])[]
  /** Whether the first row was a header naming the columns. */
  readonly hasHeader: boolean
}

/** Blanks fenced code blocks (keeping offsets) so their `|` and `||` never split cells. */
export function blankCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '))
}

/** The top-level YFM tables of `text` (already through {@link blankCode}); nested tables stay inside their cell. */
export function readTables(text: string): YfmTable[] {
  const tables: YfmTable[] = []
  let at = 0
  for (;;) {
    const start = text.indexOf('#|', at)
    if (start < 0) return tables
    const end = closingOf(text, start)
    if (end < 0) return tables
    tables.push(parseTable(text.slice(start + 2, end), start))
    at = end + 2
  }
}

/** Offset of the `|#` closing the table opened at `start`, counting nested tables. */
function closingOf(text: string, start: number): number {
  let depth = 0
  for (let i = start; i < text.length - 1; i++) {
    if (text[i] === '#' && text[i + 1] === '|' && (i === 0 || text[i - 1] !== '|')) {
      depth++
      i++
    } else if (text[i] === '|' && text[i + 1] === '#') {
      depth--
      if (depth === 0) return i
      i++
    }
  }
  return -1
}

/** Splits a table body into rows (`|| ... ||`) and cells (`|`), leaving nested tables whole. */
function parseTable(body: string, start: number): YfmTable {
  const rows: string[][] = []
  let row: string[] | null = null
  let cell = ''
  let depth = 0
  for (let i = 0; i < body.length; i++) {
    const two = body.slice(i, i + 2)
    if (two === '#|' && body[i - 1] !== '|') {
      depth++
      cell += two
      i++
    } else if (two === '|#' && depth > 0) {
      depth--
      cell += two
      i++
    } else if (depth > 0) {
      cell += body[i]
    } else if (two === '||') {
      if (row === null) {
        row = []
        cell = ''
      } else {
        row.push(cell.trim())
        rows.push(row)
        row = null
      }
      i++
    } else if (body[i] === '|' && row !== null && body[i - 1] !== '\\') {
      // (`\|` is a `|` inside a cell: a union of types, [`string` \| `object`].)
      row.push(cell.trim())
      cell = ''
    } else if (row !== null) {
      cell += body[i]
    }
  }
  // A last row the page left unclosed (`... | description\n|#`, crm.activity.type.add) still counts.
  if (row !== null && (row.length > 0 || cell.trim() !== '')) rows.push([...row, cell.trim()])
  const hasHeader = rows.length > 0 && /^\*\*(Name|Parameter|Field)/i.test(rows[0]?.[0] ?? '')
  return { start, rows: hasHeader ? rows.slice(1) : rows, hasHeader }
}
