import { EmulatorListPage } from './list-page.js'
import {
  type FixtureTable,
  type IdConstraint,
  isV2OrderDesc,
  parseV2Start,
  V2_PAGE_SIZE,
  v3Invalid,
} from './lists.js'

type Row = Record<string, unknown>

function record(value: unknown): Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Row) : {}
}

/**
 * A v2 list page of `table`: 50 rows from `start` (`-1`: no count), ordered by id, `next` while more rows match and
 * `total`; the rows are the `result`, or `{ [wrap]: rows }`.
 */
export function v2ListPage(
  table: FixtureTable<Row>,
  params: Row,
  constraint: IdConstraint,
  wrap?: string,
): EmulatorListPage {
  const paging = parseV2Start(params.start)
  const desc = isV2OrderDesc(params.order, params.sort)
  const page = table.query(constraint, desc, paging.offset, V2_PAGE_SIZE)
  const result = wrap === undefined ? page.rows : { [wrap]: page.rows }
  if (paging.noCount) return new EmulatorListPage(result, { total: 0 })
  const more = paging.offset + page.rows.length < page.total
  return new EmulatorListPage(
    result,
    more ? { next: paging.offset + V2_PAGE_SIZE, total: page.total } : { total: page.total },
  )
}

/** A v3 `cursor.limit` (`*.tail`): absent → `fallback`, otherwise an integer from 1 to `max`. */
export function v3Limit(value: unknown, fallback: number, max: number, what: string): number {
  if (value === undefined || value === null) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw v3Invalid('INVALIDPAGINATIONEXCEPTION', `${what} must be an integer from 1 to ${max}`)
  }
  return n
}

/** Most rows of one v3 list page, and the default (tasks-task-list-rest-v3.md: "default `50`, maximum `1000`"). */
const V3_PAGE_MAX = 1000
const V3_PAGE_DEFAULT = 50

/**
 * A `pagination` value: absent, or an integer (a number or a numeric string); anything else is refused as the docs
 * show, naming the whole `pagination` (tasks-task-list-rest-v3.md: "Unable to recognize the pagination parameter
 * `{"limit":"abc"}`", "Provide numeric values. `limit` must not be equal to `0`").
 */
function paginationValue(pagination: Row, key: string, accept: (n: number) => boolean): number | undefined {
  const value = pagination[key]
  if (value === undefined || value === null) return undefined
  const n =
    typeof value === 'number' || (typeof value === 'string' && value.trim() !== '')
      ? Number(value)
      : Number.NaN
  if (!Number.isInteger(n) || !accept(n))
    throw v3Invalid(
      'INVALIDPAGINATIONEXCEPTION',
      `Unable to recognize the pagination parameter \`${JSON.stringify(pagination)}\``,
    )
  return n
}

/**
 * The rows of a v3 list: `pagination: { limit, page, offset }` and `order: { id }`. Any integer page is taken: one
 * below 1 reads as the first (its offset would be negative). The vendor's JS SDK sends `page: 0` with its keyset
 * filter on every v3 callList/fetchList page, and the docs of tasks.task.list send readers to those helpers for a
 * whole list (docs/catalogue.md, "In the emulator").
 */
export function v3ListRows(table: FixtureTable<Row>, params: Row, constraint: IdConstraint): Row[] {
  const pagination = record(params.pagination)
  const limit = paginationValue(pagination, 'limit', (n) => n >= 1 && n <= V3_PAGE_MAX) ?? V3_PAGE_DEFAULT
  const page = paginationValue(pagination, 'page', () => true) ?? 1
  const offset = paginationValue(pagination, 'offset', () => true) ?? (page - 1) * limit
  return table.query(constraint, isV2OrderDesc(params.order), Math.max(0, offset), limit).rows
}
