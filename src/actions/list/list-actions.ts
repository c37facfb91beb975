import type { TypeHttp } from '../../http/rest-transport.js'
import { Result } from '../../results/result.js'
import { keysetPages } from './keyset-pages.js'
import type { KeysetPlan } from './keyset-plan.js'
import { ListPageError } from './list-page-error.js'

/** Turns the options of a list action into its paging plan; throws an `SdkError` on bad options. */
export type KeysetPlanner<O> = (options: O, action: string) => KeysetPlan

/**
 * `callList` / `callTail`: every row of a list in one {@link Result}. A page that fails at REST level, or that
 * cannot be continued, gives a failed `Result` whose data holds the rows read before (never a silently shorter
 * list). Rejects on bad options (`SdkError`) and on transport failures (`AjaxError`), like `call.make`.
 */
export class CallListAction<O> {
  /** The same pages, read here to the end. */
  readonly #pages: FetchListAction<O>

  /** @internal Built by the client's actions. */
  constructor(transport: () => TypeHttp, planner: KeysetPlanner<O>, action: string) {
    this.#pages = new FetchListAction(transport, planner, action)
  }

  /** Reads the whole list; resolves with all rows in id order. */
  async make<T = unknown>(options: O): Promise<Result<T[]>> {
    const pages = this.#pages.make<T>(options)
    const rows: T[] = []
    try {
      for await (const page of pages) {
        for (const row of page) rows.push(row)
      }
    } catch (error) {
      if (!(error instanceof ListPageError)) throw error
      const result = new Result<T[]>(rows)
      const errors = error.portalErrors.length > 0 ? error.portalErrors : [error]
      for (const item of errors) result.addError(item)
      return result
    }
    return new Result<T[]>(rows)
  }
}

/**
 * `fetchList` / `fetchTail`: a list page by page, as an async generator, so that a list of any size is processed
 * in constant memory. The next page is asked for only when the loop wants it; `break` stops the requests.
 * Bad options throw at `make()`; a failed page throws a `ListPageError` after the pages before were yielded.
 */
export class FetchListAction<O> {
  readonly #transport: () => TypeHttp
  readonly #planner: KeysetPlanner<O>
  readonly #action: string

  /** @internal Built by the client's actions. */
  constructor(transport: () => TypeHttp, planner: KeysetPlanner<O>, action: string) {
    this.#transport = transport
    this.#planner = planner
    this.#action = action
  }

  /** Yields each non-empty page of rows, in id order. */
  make<T = unknown>(options: O): AsyncGenerator<T[], void, undefined> {
    return keysetPages<T>(this.#transport, this.#planner(options, this.#action))
  }
}
