import { ApiVersion } from '../../types/api-version.js'
import { invalidArgument, isPlainObject, stringOption } from '../../validation/rules.js'
import { type KeysetPlan, planCall } from './keyset-plan.js'
import { isAscendingById, omitKeys, readListCallOptions } from './list-call-options.js'
import type { ListOptions } from './list-options.js'

/** Default rows per v3 page (the portal's default `pagination.limit`). */
export const V3_DEFAULT_PAGE_SIZE = 50

function readLimit(pagination: unknown, where: string): number {
  if (pagination === undefined) return V3_DEFAULT_PAGE_SIZE
  if (!isPlainObject(pagination))
    throw invalidArgument(`${where}: params.pagination`, 'must be an object { limit }')
  const extra = Object.keys(pagination).filter((key) => key !== 'limit')
  if (extra.length > 0) {
    throw invalidArgument(
      `${where}: params.pagination.${extra[0]}`,
      'is set by the keyset algorithm (id filter); only pagination.limit may be given',
    )
  }
  const { limit } = pagination
  if (limit === undefined) return V3_DEFAULT_PAGE_SIZE
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw invalidArgument(
      `${where}: params.pagination.limit`,
      `must be a positive integer, got ${String(limit)}`,
    )
  }
  return limit
}

/**
 * The v3 id keyset (contract 4.5): every page is ordered by the id ascending and filtered with the triple
 * `[id, '>', last id]` appended to the caller's `filter`; `pagination.limit` is the page size. A caller's `order`,
 * `pagination.page` or `pagination.offset` is refused, because they would make the keyset skip rows.
 */
export function planV3Keyset(options: ListOptions, action: string): KeysetPlan {
  const where = `v3 ${action}`
  const call = readListCallOptions(options, ApiVersion.v3, action)
  const idKey = stringOption(`${where}: idKey`, options.idKey, 'id')
  const cursorIdKey = stringOption(`${where}: cursorIdKey`, options.cursorIdKey, idKey)
  const rowsKey = stringOption(`${where}: customKeyForResult`, options.customKeyForResult, 'items')
  const { params } = call
  if (params.order !== undefined && !isAscendingById(params.order, cursorIdKey)) {
    throw invalidArgument(
      `${where}: params.order`,
      `is set by the keyset algorithm ({ ${cursorIdKey}: 'ASC' }); remove it, or page with call.make and pagination`,
    )
  }
  const limit = readLimit(params.pagination, where)
  const filter = params.filter
  if (filter !== undefined && !Array.isArray(filter)) {
    throw invalidArgument(
      `${where}: params.filter`,
      'must be an array of conditions such as [["title", "=", "x"]]',
    )
  }
  const base = omitKeys(params, ['order', 'filter', 'pagination'])
  return {
    ...planCall(ApiVersion.v3, action, call),
    pageSize: limit,
    rowIdKey: idKey,
    rowsKey,
    descending: false,
    paramsFor: (after) => {
      const pageFilter = after === undefined ? filter : [...(filter ?? []), [cursorIdKey, '>', after]]
      return {
        ...base,
        order: { [cursorIdKey]: 'ASC' },
        ...(pageFilter === undefined ? {} : { filter: pageFilter }),
        pagination: { limit },
      }
    },
  }
}
