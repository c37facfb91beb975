import type { ApiVersion } from '../../types/api-version.js'
import type { RowId } from './page-rows.js'

/** How to read one list page by page: what to send for each page and how to continue from its last row. */
export interface KeysetPlan {
  /** REST API version of the method. */
  apiVersion: ApiVersion
  /** Name of the action, for messages (`callList`, `fetchTail`, ...). */
  action: string
  /** The list method. */
  method: string
  /** Label sent with every page. */
  requestId: string | undefined
  /** Cancels the listing. */
  signal: AbortSignal | undefined
  /** A page with fewer rows is the last one. */
  pageSize: number
  /** Key of the id in a row. */
  rowIdKey: string
  /** Key of the rows in `result`; `undefined` when `result` is the list. */
  rowsKey: string | undefined
  /** Whether ids decrease from page to page. */
  descending: boolean
  /** Parameters of the page after the row with id `after`; `undefined` asks for the first page. */
  paramsFor(after: RowId | undefined): Record<string, unknown>
}

/** The fields of a plan that say which call it pages through: the same for every list action. */
export function planCall(
  apiVersion: ApiVersion,
  action: string,
  call: { method: string; requestId: string | undefined; signal: AbortSignal | undefined },
): Pick<KeysetPlan, 'apiVersion' | 'action' | 'method' | 'requestId' | 'signal'> {
  return { apiVersion, action, method: call.method, requestId: call.requestId, signal: call.signal }
}
