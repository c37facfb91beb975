import { ApiVersion } from '../../types/api-version.js'
import { invalidArgument, isPlainObject, stringOption } from '../../validation/rules.js'
import { type KeysetPlan, planCall } from './keyset-plan.js'
import { isAscendingById, keyOf, omitKeys, readListCallOptions } from './list-call-options.js'
import type { ListOptions } from './list-options.js'

/** Rows of a v2 list page (`IRestService::LIST_LIMIT`); a shorter page is the last. */
export const V2_PAGE_SIZE = 50

/**
 * The fast v2 keyset (contract 5.3): every page is ordered by the id ascending, filtered to ids above the last
 * row of the page before, and sent with `start: -1` so the portal counts nothing. A caller's `filter` is kept
 * (its own `>id` bound applies to the first page); a caller's `order` or `start` is refused, because any other
 * order would make the keyset skip rows.
 */
export function planV2Keyset(options: ListOptions, action: string): KeysetPlan {
  const where = `v2 ${action}`
  const call = readListCallOptions(options, ApiVersion.v2, action)
  const idKey = stringOption(`${where}: idKey`, options.idKey, 'ID')
  const cursorIdKey = stringOption(`${where}: cursorIdKey`, options.cursorIdKey, idKey)
  const rowsKey = stringOption(`${where}: customKeyForResult`, options.customKeyForResult, undefined)
  const { params } = call
  const orderKey = keyOf(params, 'order') ?? 'order'
  const filterKey = keyOf(params, 'filter') ?? 'filter'
  const order = params[orderKey]
  if (order !== undefined && !isAscendingById(order, cursorIdKey)) {
    throw invalidArgument(
      `${where}: params.${orderKey}`,
      `is set by the keyset algorithm ({ ${cursorIdKey}: 'ASC' }); remove it, or page with call.make and start`,
    )
  }
  if (params.start !== undefined && String(params.start) !== '-1') {
    throw invalidArgument(`${where}: params.start`, 'is set by the keyset algorithm (-1); remove it')
  }
  const filter = params[filterKey]
  if (filter !== undefined && !isPlainObject(filter)) {
    throw invalidArgument(`${where}: params.${filterKey}`, 'must be an object such as { TYPE_ID: "CLIENT" }')
  }
  const base = omitKeys(params, [orderKey, filterKey, 'start'])
  return {
    ...planCall(ApiVersion.v2, action, call),
    pageSize: V2_PAGE_SIZE,
    rowIdKey: idKey,
    rowsKey,
    descending: false,
    paramsFor: (after) => {
      const pageFilter = after === undefined ? filter : { ...filter, [`>${cursorIdKey}`]: after }
      return {
        ...base,
        [orderKey]: { [cursorIdKey]: 'ASC' },
        ...(pageFilter === undefined ? {} : { [filterKey]: pageFilter }),
        start: -1,
      }
    },
  }
}
