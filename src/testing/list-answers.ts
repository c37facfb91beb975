import { EmulatorListPage } from './list-page.js'
import {
  type FixtureTable,
  type IdConstraint,
  isV2OrderDesc,
  parseV2Start,
  toId,
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

/** A v3 page size or page number: absent → `fallback`, otherwise an integer from 1 to `max`. */
export function v3Limit(value: unknown, fallback: number, max: number, what: string): number {
  if (value === undefined || value === null) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw v3Invalid('INVALIDPAGINATIONEXCEPTION', `${what} must be an integer from 1 to ${max}`, what)
  }
  return n
}

/** Whether a pagination value is 0 (a number or a numeric string). */
function isZero(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && Number(value) === 0
}

/** The rows of a v3 list: `pagination: { limit (1..1000, default 50), page, offset }` and `order: { id }`. */
export function v3ListRows(table: FixtureTable<Row>, params: Row, constraint: IdConstraint): Row[] {
  const pagination = record(params.pagination)
  const limit = v3Limit(pagination.limit, 50, 1000, 'limit')
  // Page 0 is the first page, as page 1: the vendor's JS SDK sends `page: 0` with its keyset filter on every v3
  // callList/fetchList page, and the docs of tasks.task.list send readers to those helpers for a whole list (see
  // docs/catalogue.md, "In the emulator").
  const page = isZero(pagination.page) ? 1 : v3Limit(pagination.page, 1, Number.MAX_SAFE_INTEGER, 'page')
  const offset = pagination.offset !== undefined ? Math.max(0, toId(pagination.offset)) : (page - 1) * limit
  return table.query(constraint, isV2OrderDesc(params.order), offset, limit).rows
}
