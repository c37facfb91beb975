import { EmulatorRestError } from './errors.js'

/** Default row count of every list fixture. */
export const DEFAULT_LIST_ROWS = 120

/** v2 list page size (`IRestService::LIST_LIMIT`). */
export const V2_PAGE_SIZE = 50

/** A set of ids: the interval `lo..hi`, optionally restricted to `include`, minus `exclude`. */
export interface IdConstraint {
  lo: number
  hi: number
  include: number[] | undefined
  exclude: Set<number>
}

/** The constraint that matches every id. */
export function anyId(): IdConstraint {
  return {
    lo: Number.NEGATIVE_INFINITY,
    hi: Number.POSITIVE_INFINITY,
    include: undefined,
    exclude: new Set(),
  }
}

/** PHP-ish integer cast of a filter value (`'5'` → 5, garbage → 0). */
export function toId(value: unknown): number {
  const n = Math.trunc(Number(value))
  return Number.isFinite(n) ? n : 0
}

function toIdList(value: unknown): number[] {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.values(value)
      : []
  return list.map(toId)
}

/** Narrow `constraint` by one comparison on the id (`=`, `!=`, `>`, `>=`, `<`, `<=`, `in`, `between`). */
export function constrainId(constraint: IdConstraint, op: string, value: unknown): boolean {
  switch (op) {
    case '=':
    case 'in': {
      const ids = Array.isArray(value) || op === 'in' ? toIdList(value) : [toId(value)]
      const current = constraint.include
      constraint.include = current ? current.filter((id) => ids.includes(id)) : ids
      return true
    }
    case '!=':
      for (const id of Array.isArray(value) ? toIdList(value) : [toId(value)]) constraint.exclude.add(id)
      return true
    case '>':
      constraint.lo = Math.max(constraint.lo, toId(value) + 1)
      return true
    case '>=':
      constraint.lo = Math.max(constraint.lo, toId(value))
      return true
    case '<':
      constraint.hi = Math.min(constraint.hi, toId(value) - 1)
      return true
    case '<=':
      constraint.hi = Math.min(constraint.hi, toId(value))
      return true
    case 'between': {
      const [from, to] = toIdList(value)
      constraint.lo = Math.max(constraint.lo, from ?? Number.NEGATIVE_INFINITY)
      constraint.hi = Math.min(constraint.hi, to ?? Number.POSITIVE_INFINITY)
      return true
    }
    default:
      return false
  }
}

const V2_FILTER_KEY = /^(>=|<=|!=|!|>|<|=|@)?(.+)$/

/**
 * Read a v2 `filter` map: keys `>ID`, `>=ID`, `<ID`, `<=ID`, `=ID`, `ID`, `!ID`, `@ID` on the id field (any
 * case); other keys are ignored.
 */
export function parseV2Filter(filter: unknown): IdConstraint {
  const constraint = anyId()
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return constraint
  for (const [key, value] of Object.entries(filter)) {
    const match = V2_FILTER_KEY.exec(key)
    if (match?.[2]?.toLowerCase() !== 'id') continue
    const prefix = match[1] ?? '='
    const op = prefix === '!' ? '!=' : prefix === '@' ? 'in' : prefix
    constrainId(constraint, op, value)
  }
  return constraint
}

/** True when a v2 `order` map (or `sort` + `order` pair) asks for descending ids. */
export function isV2OrderDesc(order: unknown, sort?: unknown): boolean {
  if (typeof sort === 'string' && sort.toLowerCase() === 'id') {
    return typeof order === 'string' && order.toUpperCase() === 'DESC'
  }
  if (typeof order !== 'object' || order === null) return false
  for (const [key, value] of Object.entries(order)) {
    if (key.toLowerCase() === 'id') return String(value).toUpperCase() === 'DESC'
  }
  return false
}

/** A v2 page request derived from `start`. */
export interface V2Paging {
  offset: number
  /** `start=-1`: no count, `total: 0`, no `next`. */
  noCount: boolean
}

/** Read the v2 `start` parameter (offset; `-1` disables counting). */
export function parseV2Start(start: unknown): V2Paging {
  const n = toId(start)
  if (n === -1) return { offset: 0, noCount: true }
  return { offset: Math.max(0, n), noCount: false }
}

/**
 * The message of every v3 request validation error: the docs show `"message": "Error during request object
 * validation"` with the field's own message in `validation` (tasks-task-add-rest-v3.md, tasks-task-update-rest-v3.md,
 * timeman-record-list.md), so a client printing both says it once.
 */
export const V3_VALIDATION_MESSAGE = 'Error during request object validation'

/** A v3 request validation error (`VALIDATION_REQUESTVALIDATIONEXCEPTION`) about `field`. */
export function v3ValidationError(field: string, message: string): EmulatorRestError {
  return new EmulatorRestError(
    'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
    V3_VALIDATION_MESSAGE,
    400,
    { validation: [{ field, message }] },
  )
}

/**
 * Another v3 error of the request (`INVALIDFILTEREXCEPTION`, ...): its message says it all, without `validation`,
 * which only request validation errors carry (protocol.md 4; the docs' examples of these errors have none).
 */
export function v3Invalid(code: string, message: string): EmulatorRestError {
  return new EmulatorRestError(`BITRIX_REST_V3_EXCEPTION_${code}`, message, 400)
}

/**
 * Read a v3 `filter` (`[[field, op, value], [field, value], ...]`, AND only). Only the `id` field can be filtered;
 * another field of the row answers INVALIDFILTEREXCEPTION, an unknown one UNKNOWNDTOPROPERTYEXCEPTION.
 */
export function parseV3Filter(filter: unknown, knownFields: readonly string[]): IdConstraint {
  const constraint = anyId()
  if (filter === undefined || filter === null) return constraint
  if (!Array.isArray(filter))
    throw v3Invalid('INVALIDFILTEREXCEPTION', 'Filter must be an array of conditions')
  for (const condition of filter) {
    if (!Array.isArray(condition) || condition.length < 2 || condition.length > 3) {
      throw v3Invalid(
        'INVALIDFILTEREXCEPTION',
        'Filter condition must be [field, operator, value] (OR groups are not emulated)',
      )
    }
    const [field, op, value] = condition.length === 2 ? [condition[0], '=', condition[1]] : condition
    if (typeof field !== 'string' || !knownFields.includes(field)) {
      throw v3Invalid('UNKNOWNDTOPROPERTYEXCEPTION', `Unknown field \`${String(field)}\``)
    }
    if (field !== 'id') {
      throw v3Invalid('INVALIDFILTEREXCEPTION', `The emulator filters by \`id\` only, not by \`${field}\``)
    }
    if (typeof op !== 'string' || !constrainId(constraint, op.toLowerCase(), value)) {
      throw v3Invalid('UNKNOWNFILTEROPERATOREXCEPTION', `Unknown filter operator \`${String(op)}\``)
    }
  }
  return constraint
}

/**
 * Keep only the selected fields of a v3 row (unknown fields are dropped silently; no select → every field). The id
 * stays whatever `select` names: every answer has it (the result types require it, and the next call takes it).
 */
export function selectFields<Row extends Record<string, unknown>>(
  row: Row,
  select: unknown,
): Record<string, unknown> {
  if (!Array.isArray(select) || select.length === 0) return row
  const out: Record<string, unknown> = 'id' in row ? { id: row.id } : {}
  for (const field of select) {
    if (typeof field === 'string' && field in row) out[field] = row[field]
  }
  return out
}

/** A page of rows with the count of all matching rows. */
export interface FixturePage<Row> {
  rows: Row[]
  total: number
}

/**
 * A table of rows with ids `1..size`: the first `baseCount` rows are generated on demand from their id (nothing is
 * stored), added and updated rows are kept in memory. Queries on the id are answered without scanning.
 */
export class FixtureTable<Row> {
  readonly #baseCount: number
  readonly #make: (id: number) => Row
  readonly #stored = new Map<number, Row>()
  readonly #deleted = new Set<number>()
  #added = 0

  constructor(baseCount: number, make: (id: number) => Row) {
    this.#baseCount = Math.max(0, Math.trunc(baseCount))
    this.#make = make
  }

  /** Highest id given so far (generated plus added rows, deleted ones included: ids are never reused). */
  get size(): number {
    return this.#baseCount + this.#added
  }

  /** The row with this id, if any. */
  get(id: number): Row | undefined {
    if (!Number.isInteger(id) || id < 1 || id > this.size || this.#deleted.has(id)) return undefined
    return this.#stored.get(id) ?? this.#make(id)
  }

  /** Add a row built from its new id. */
  add(build: (id: number) => Row): Row {
    this.#added += 1
    const id = this.size
    const row = build(id)
    this.#stored.set(id, row)
    return row
  }

  /** Replace a row through `patch`; undefined when the id does not exist. */
  update(id: number, patch: (row: Row) => Row): Row | undefined {
    const row = this.get(id)
    if (row === undefined) return undefined
    const next = patch(row)
    this.#stored.set(id, next)
    return next
  }

  /** Remove a row; false when the id does not exist. */
  delete(id: number): boolean {
    if (this.get(id) === undefined) return false
    this.#stored.delete(id)
    this.#deleted.add(id)
    return true
  }

  /** The rows matching `constraint`, ordered by id, from `offset`, at most `limit`; `total` counts all matches. */
  query(constraint: IdConstraint, desc: boolean, offset: number, limit: number): FixturePage<Row> {
    const lo = Math.max(1, constraint.lo)
    const hi = Math.min(this.size, constraint.hi)
    const exclude =
      this.#deleted.size === 0 ? constraint.exclude : new Set([...constraint.exclude, ...this.#deleted])
    const ids = constraint.include
      ? this.#pageOfList(constraint.include, lo, hi, exclude, desc, offset, limit)
      : this.#pageOfRange(lo, hi, exclude, desc, offset, limit)
    return { rows: ids.ids.map((id) => this.get(id) as Row), total: ids.total }
  }

  #pageOfList(
    include: number[],
    lo: number,
    hi: number,
    exclude: Set<number>,
    desc: boolean,
    offset: number,
    limit: number,
  ): { ids: number[]; total: number } {
    const ids = [...new Set(include)]
      .filter((id) => Number.isInteger(id) && id >= lo && id <= hi && !exclude.has(id))
      .sort((a, b) => (desc ? b - a : a - b))
    return { ids: ids.slice(offset, offset + limit), total: ids.length }
  }

  #pageOfRange(
    lo: number,
    hi: number,
    exclude: Set<number>,
    desc: boolean,
    offset: number,
    limit: number,
  ): { ids: number[]; total: number } {
    if (hi < lo) return { ids: [], total: 0 }
    const excluded = [...exclude].filter((id) => id >= lo && id <= hi).sort((a, b) => (desc ? b - a : a - b))
    const total = hi - lo + 1 - excluded.length
    const step = desc ? -1 : 1
    let pos = desc ? hi - offset : lo + offset
    for (const id of excluded) {
      if (desc ? id >= pos : id <= pos) pos += step
      else break
    }
    const ids: number[] = []
    while (ids.length < limit && (desc ? pos >= lo : pos <= hi)) {
      if (!exclude.has(pos)) ids.push(pos)
      pos += step
    }
    return { ids, total }
  }
}
