import { SdkErrorCode } from '../../errors/sdk-error.js'
import type { TypeHttp } from '../../http/rest-transport.js'
import type { KeysetPlan } from './keyset-plan.js'
import { ListPageError } from './list-page-error.js'
import { isPast, type RowId, readRowId, readRows } from './page-rows.js'

function noProgress(where: string, page: number, after: RowId, status: number): ListPageError {
  return new ListPageError({
    code: SdkErrorCode.ListNoProgress,
    message: `${where}: page ${page} did not move past id ${String(after)}; the method ignores the id filter or cursor (check cursorIdKey)`,
    page,
    status,
  })
}

/**
 * Reads a list page by page as `plan` says and yields each non-empty page. Only one page is held at a time, and
 * the next page is asked for only when the consumer asks for it, so `break` stops the requests. Stops after a
 * page shorter than `plan.pageSize`; throws a {@link ListPageError} when a page fails or cannot be continued.
 * Transport failures reject with the transport's `AjaxError`.
 */
export async function* keysetPages<T>(
  transport: () => TypeHttp,
  plan: KeysetPlan,
): AsyncGenerator<T[], void, undefined> {
  const where = `${plan.apiVersion} ${plan.action} ${plan.method}`
  let after: RowId | undefined
  for (let page = 1; ; page += 1) {
    const response = await transport().call(
      {
        method: plan.method,
        params: plan.paramsFor(after),
        ...(plan.requestId === undefined ? {} : { requestId: plan.requestId }),
        ...(plan.signal === undefined ? {} : { signal: plan.signal }),
      },
      // A list page only reads: a timeout may be retried.
      { readOnly: true },
    )
    if (!response.isSuccess) {
      const [first] = response.getErrors()
      throw new ListPageError({
        code: first?.code ?? 'ERROR',
        message: `${where}: page ${page} failed: ${response.getErrorMessages().join('; ')}`,
        page,
        status: response.getStatus(),
        portalErrors: response.getErrors(),
      })
    }
    const rows = readRows(response.getData()?.result, plan.rowsKey)
    if (rows === undefined) {
      throw new ListPageError({
        code: SdkErrorCode.ListNotRows,
        message:
          plan.rowsKey === undefined
            ? `${where}: page ${page} is not a list of rows; if the method wraps its rows, set customKeyForResult`
            : `${where}: page ${page} has no list at result.${plan.rowsKey}; check customKeyForResult`,
        page,
        status: response.getStatus(),
      })
    }
    const first = readRowId(rows[0], plan.rowIdKey)
    if (after !== undefined && first !== undefined && !isPast(after, first, plan.descending)) {
      // The method ignored the cursor: asking again would return the same rows forever.
      throw noProgress(where, page, after, response.getStatus())
    }
    if (rows.length > 0) yield rows as T[]
    if (rows.length < plan.pageSize) return
    const last = readRowId(rows.at(-1), plan.rowIdKey)
    if (last === undefined) {
      // Without the id the next page cannot be asked for; stopping here silently would truncate the list.
      throw new ListPageError({
        code: SdkErrorCode.ListIdMissing,
        message: `${where}: the last row of page ${page} has no usable "${plan.rowIdKey}", so the next page cannot be asked for; select that field or set idKey`,
        page,
        status: response.getStatus(),
      })
    }
    if (after !== undefined && !isPast(after, last, plan.descending)) {
      throw noProgress(where, page, after, response.getStatus())
    }
    after = last
  }
}
