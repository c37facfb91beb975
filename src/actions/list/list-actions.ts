import type { DocumentedResult } from '../../catalogue/call-types.js'
import type { TypeHttp } from '../../http/rest-transport.js'
import { Result } from '../../results/result.js'
import { keysetPages } from './keyset-pages.js'
import type { KeysetPlan } from './keyset-plan.js'
import type { ListRow } from './list-options.js'
import { ListPageError } from './list-page-error.js'

/** Turns the options of a list action into its paging plan; throws an `SdkError` on bad options. */
export type KeysetPlanner<O> = (options: O, action: string) => KeysetPlan

/**
 * `callList` / `callTail`: every row of a list in one {@link Result}. A page that fails at REST level, or that
 * cannot be continued, gives a failed `Result` whose data holds the rows read before (never a silently shorter
 * list). Rejects on bad options (`SdkError`) and on transport failures (`AjaxError`), like `call.make`.
 * `O`: the options a caller gives, checked against the catalogue; `U`: the same unchecked (`unchecked: true`);
 * `P`: the options the paging plan reads; `Res`: the documented results, whose lists type the rows; `Key`: where
 * the rows are in a result when the options do not say (`customKeyForResult`).
 */
export class CallListAction<O, U = never, P = O, Res = Record<never, never>, Key = never> {
  /** The same pages, read here to the end. */
  readonly #pages: FetchListAction<O, U, P, Res, Key>

  /** @internal Built by the client's actions. */
  constructor(transport: () => TypeHttp, planner: KeysetPlanner<P>, action: string) {
    this.#pages = new FetchListAction(transport, planner, action)
  }

  /**
   * Reads a list method the catalogue lacks, or with parameters it lacks (`unchecked: true`); sent exactly as a
   * checked list. (Declared first, so that a checked call that fails to compile reports the catalogue's error.)
   */
  make<T = unknown>(options: U): Promise<Result<T[]>>
  /**
   * Reads the whole list of a documented method; resolves with all rows in id order, typed as the method's docs
   * show them (`make<T>` types them as `T`).
   */
  make<T = DocumentedResult, const L extends O = O>(
    options: L,
  ): Promise<Result<Array<ListRow<T, Res, L, Key>>>>
  async make<T = unknown>(options: O | U): Promise<Result<T[]>> {
    // Either shape pages the same; the unchecked overload keeps the row type `T`.
    const pages = this.#pages.make<T>(options as U)
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
 * `O`, `U`, `P`, `Res` and `Key` as in {@link CallListAction}.
 */
export class FetchListAction<O, U = never, P = O, Res = Record<never, never>, Key = never> {
  readonly #transport: () => TypeHttp
  readonly #planner: KeysetPlanner<P>
  readonly #action: string

  /** @internal Built by the client's actions. */
  constructor(transport: () => TypeHttp, planner: KeysetPlanner<P>, action: string) {
    this.#transport = transport
    this.#planner = planner
    this.#action = action
  }

  /**
   * Pages through a list method the catalogue lacks, or with parameters it lacks (`unchecked: true`); sent exactly
   * as a checked list.
   */
  make<T = unknown>(options: U): AsyncGenerator<T[], void, undefined>
  /** Yields each non-empty page of rows of a documented method, in id order, typed as in `CallListAction`. */
  make<T = DocumentedResult, const L extends O = O>(
    options: L,
  ): AsyncGenerator<Array<ListRow<T, Res, L, Key>>, void, undefined>
  make<T = unknown>(options: O | U): AsyncGenerator<T[], void, undefined> {
    // `O` and `U` are `P` typed against the catalogue (plus `unchecked`, which is not read); the plan validates it.
    return keysetPages<T>(this.#transport, this.#planner(options as unknown as P, this.#action))
  }
}
