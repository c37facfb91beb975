import { ApiVersion } from '../../types/api-version.js'
import { invalidArgument, isPlainObject, stringOption } from '../../validation/rules.js'
import { type KeysetPlan, planCall } from './keyset-plan.js'
import { omitKeys, readListCallOptions } from './list-call-options.js'
import type { TailCursor, TailOptions } from './list-options.js'

/** Default rows per page of a `*.tail` method. */
export const TAIL_DEFAULT_LIMIT = 50

function readCursor(options: TailOptions, params: Record<string, unknown>, where: string): TailCursor {
  if (options.cursor !== undefined && params.cursor !== undefined) {
    throw invalidArgument(`${where}: params.cursor`, 'and the cursor option are both set; give only one')
  }
  const cursor = options.cursor ?? params.cursor
  if (cursor === undefined) return {}
  if (!isPlainObject(cursor))
    throw invalidArgument(`${where}: cursor`, 'must be an object { field, value, order, limit }')
  return cursor as TailCursor
}

/**
 * A v3 `*.tail` keyset (contract 4.5, `main.eventlog.tail`): every page sends
 * `cursor: { field, value, order, limit }` with `value` moved to the `field` of the last row of the page before.
 */
export function planV3Tail(options: TailOptions, action: string): KeysetPlan {
  const where = `v3 ${action}`
  const call = readListCallOptions(options, ApiVersion.v3, action)
  const rowsKey = stringOption(`${where}: customKeyForResult`, options.customKeyForResult, 'items')
  const cursor = readCursor(options, call.params, where)
  const field = stringOption(`${where}: cursor.field`, cursor.field, 'id')
  const order = cursor.order === undefined ? 'ASC' : String(cursor.order).toUpperCase()
  if (order !== 'ASC' && order !== 'DESC') {
    throw invalidArgument(
      `${where}: cursor.order`,
      `must be 'ASC' or 'DESC', got ${JSON.stringify(cursor.order)}`,
    )
  }
  const limit = cursor.limit ?? TAIL_DEFAULT_LIMIT
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw invalidArgument(`${where}: cursor.limit`, `must be a positive integer, got ${String(limit)}`)
  }
  const start = cursor.value
  if (start !== undefined && typeof start !== 'number' && typeof start !== 'string') {
    throw invalidArgument(`${where}: cursor.value`, `must be a number or a string, got ${typeof start}`)
  }
  const base = omitKeys(call.params, ['cursor'])
  return {
    ...planCall(ApiVersion.v3, action, call),
    pageSize: limit,
    rowIdKey: field,
    rowsKey,
    descending: order === 'DESC',
    paramsFor: (after) => {
      const value = after ?? start
      return { ...base, cursor: { field, ...(value === undefined ? {} : { value }), order, limit } }
    },
  }
}
