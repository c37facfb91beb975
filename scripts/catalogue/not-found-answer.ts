/**
 * The error a method answers for an id that does not exist, as its page's "Error Handling" section shows it: the
 * example answer when it is that error, else the row of the error table that says so. The emulator answers a get,
 * update or delete of an unknown id with it, instead of one error for every method.
 */
import { blankCode, readTables } from './yfm-tables.js'

/** A REST error: its code (`''` where the page says "Empty value") and its message, `{id}` where it names the id. */
export interface DocError {
  readonly code: string
  readonly message: string
}

/**
 * Errors about the parent of the object rather than the object (`crm.item.update` shows "Smart process not found",
 * for an unknown `entityTypeId`): not what an unknown id answers.
 */
const PARENT = /smart process|\bSPA\b|entityTypeId|type not found/i

/**
 * The message with the id it names as `{id}`: the docs write it `X`, `#ID#` or the example's own id
 * (`` Record with ID = `2` not found ``, "The Requisite with ID '27' is not found").
 */
function withIdPlaceholder(message: string): string {
  return message
    .replace(/`(?:X|#ID#|\d+)`/g, '`{id}`')
    .replace(/'\d+'/g, "'{id}'")
    .replace(/#ID#/g, '{id}')
}

/** Words of a message or an explanation that say the object is not there. */
const NOT_THERE = /not found|not exist|could not find|no \w+ (?:exists|with)|does not exist|wasn't found/i

/** The section `## Error Handling` (or `## Errors`) of `text`, code kept; '' without one. */
function errorSection(text: string): string {
  const heading = /^## +(Error Handling|Errors|Error Processing)\b.*$/im.exec(blankCode(text))
  if (heading === null) return ''
  const start = heading.index + heading[0].length
  const next = blankCode(text).slice(start).search(/^## /m)
  return text.slice(start, next < 0 ? text.length : start + next)
}

/** The error of a JSON answer: v2 `{ error, error_description }`, v3 `{ error: { code, message } }`. */
function errorOf(answer: unknown): DocError | undefined {
  if (answer === null || typeof answer !== 'object' || !('error' in answer)) return undefined
  const { error } = answer as { error: unknown; error_description?: unknown }
  if (typeof error === 'string') {
    const description = (answer as { error_description?: unknown }).error_description
    return typeof description === 'string' ? { code: error, message: description } : undefined
  }
  if (error !== null && typeof error === 'object') {
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (typeof code === 'string' && typeof message === 'string') return { code, message }
  }
  return undefined
}

/** A cell's text without links, bold or a code span around all of it: `` `NOT_FOUND` `` → `NOT_FOUND`. */
function plain(cell: string): string {
  const text = cell
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  return /^`[^`]*`$/.test(text) ? text.slice(1, -1) : text
}

/** The code of a cell of the table's Code column: the code, or '' for "Empty value" / "Empty string" / "-". */
function codeOf(cell: string): string | undefined {
  const text = plain(cell)
  if (/^(empty( value| string)?|-|—)$/i.test(text)) return ''
  return /^[A-Za-z][\w.]*$/.test(text) ? text : undefined
}

/** From the error table: the first row whose description or explanation says the object is not there. */
function fromTable(section: string): DocError | undefined {
  for (const table of readTables(blankCode(section))) {
    const [header, ...rows] = table.rows
    const names = (header ?? []).map((cell) => plain(cell).replace(/`/g, '').toLowerCase())
    const code = names.findIndex((name) => name === 'code' || name === 'error code')
    const message = names.findIndex((name, index) => index > code && /description|message|error/.test(name))
    if (code < 0 || message < 0) continue
    for (const row of rows) {
      if (!row.some((cell) => NOT_THERE.test(cell)) || row.some((cell) => PARENT.test(cell))) continue
      const found = codeOf(row[code] ?? '')
      if (found !== undefined) return { code: found, message: withIdPlaceholder(plain(row[message] ?? '')) }
    }
  }
  return undefined
}

/** The not-found error `text` (a whole page) documents, or undefined when its error section shows none. */
export function readNotFound(text: string): DocError | undefined {
  const section = errorSection(text)
  if (section === '') return undefined
  for (const block of section.matchAll(/```(?:json|js|javascript)?[ \t]*\n([\s\S]*?)```/g)) {
    try {
      const error = errorOf(JSON.parse(block[1] ?? ''))
      if (error && NOT_THERE.test(error.message) && !PARENT.test(error.message))
        return { code: error.code, message: withIdPlaceholder(error.message) }
    } catch {
      // Not JSON: the next block may be.
    }
  }
  return fromTable(section)
}
