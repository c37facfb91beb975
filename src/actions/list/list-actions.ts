import type {
  CheckedOptions,
  DocumentedResult,
  NoResultType,
  ReportedOptions,
  ResultTypeGiven,
} from '../../catalogue/call-types.js'
import type { TypeHttp } from '../../http/rest-transport.js'
import { Result } from '../../results/result.js'
import { keysetPages } from './keyset-pages.js'
import type { KeysetPlan } from './keyset-plan.js'
import type { ListRowOf, TypedListOptions } from './list-options.js'
import { ListPageError } from './list-page-error.js'

/** Turns the options of a list action into its paging plan; throws an `SdkError` on bad options. */
export type KeysetPlanner<O> = (options: O, action: string) => KeysetPlan

/**
 * `callList` / `callTail`: every row of a list in one {@link Result}. A page that fails at REST level, or that
 * cannot be continued, gives a failed `Result` whose data holds the rows read before (never a silently shorter
 * list). Rejects on bad options (`SdkError`) and on transport failures (`AjaxError`), like `call.make`.
 * `C`: the catalogue of the methods it takes (method name to parameters); `B`: its options besides `method` and
 * `params`; `U`: the options unchecked (`unchecked: true`); `P`: the options the paging plan reads; `Res`: the
 * documented results, whose lists type the rows; `Key`: where the rows are in a result when the options do not say
 * (`customKeyForResult`); `Typed`: the options of a call that gives the row type (`make<Row>(...)`), one union
 * member per documented method, written out (the built-in catalogues' `V2ListCall`: built from `C` on each
 * keystroke, it cost an editor some 14 000 type instantiations), or `never` to build them from `C`
 * ({@link TypedListOptions}).
 */
export class CallListAction<C, B, U = never, P = B, Res = Record<never, never>, Key = never, Typed = never> {
  /** The same pages, read here to the end. */
  readonly #pages: FetchListAction<C, B, U, P, Res, Key, Typed>

  /** @internal Built by the client's actions. */
  constructor(transport: () => TypeHttp, planner: KeysetPlanner<P>, action: string) {
    this.#pages = new FetchListAction(transport, planner, action)
  }

  /**
   * Reads the whole list of a documented method; resolves with all rows in id order, typed as the method's docs
   * show them. (Declared first: an editor completes `params` from it while a call does not compile yet.)
   */
  make<T = DocumentedResult, M extends string = string, const K extends string = never>(
    options: CheckedOptions<C, M, ListBase<B, K>> & NoResultType<T>,
  ): Promise<Result<Array<ListRowOf<T, Res, M, K, Key>>>>
  /**
   * Reads a list method the catalogue lacks, or with parameters it lacks (`unchecked: true`); sent exactly as a
   * checked list.
   */
  make<T = unknown>(options: U): Promise<Result<T[]>>
  /**
   * Reads the whole list of a documented method with the row type given (`make<Row>(...)`): checked against the
   * union of every documented method's options, as the method name is not inferred when a type argument is given.
   */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: TypedListOptions<C, B, Typed>,
  ): Promise<Result<T[]>>
  /** Checked as the first form; last, so that a call that does not compile reports its error. */
  make<T = DocumentedResult, M extends string = never, const K extends string = never>(
    options: ReportedOptions<C, M, ListBase<B, K>>,
  ): Promise<Result<Array<ListRowOf<T, Res, M, K, Key>>>>
  async make<T = unknown>(options: unknown): Promise<Result<T[]>> {
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
 * `C`, `B`, `U`, `P`, `Res`, `Key` and `Typed` as in {@link CallListAction}.
 */
export class FetchListAction<C, B, U = never, P = B, Res = Record<never, never>, Key = never, Typed = never> {
  readonly #transport: () => TypeHttp
  readonly #planner: KeysetPlanner<P>
  readonly #action: string

  /** @internal Built by the client's actions. */
  constructor(transport: () => TypeHttp, planner: KeysetPlanner<P>, action: string) {
    this.#transport = transport
    this.#planner = planner
    this.#action = action
  }

  /** Yields each non-empty page of rows of a documented method, in id order, typed as in `CallListAction`. */
  make<T = DocumentedResult, M extends string = string, const K extends string = never>(
    options: CheckedOptions<C, M, ListBase<B, K>> & NoResultType<T>,
  ): AsyncGenerator<Array<ListRowOf<T, Res, M, K, Key>>, void, undefined>
  /**
   * Pages through a list method the catalogue lacks, or with parameters it lacks (`unchecked: true`); sent exactly
   * as a checked list.
   */
  make<T = unknown>(options: U): AsyncGenerator<T[], void, undefined>
  /** With the row type given, as in `CallListAction`. */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: TypedListOptions<C, B, Typed>,
  ): AsyncGenerator<T[], void, undefined>
  /** Checked as the first form; last, so that a call that does not compile reports its error. */
  make<T = DocumentedResult, M extends string = never, const K extends string = never>(
    options: ReportedOptions<C, M, ListBase<B, K>>,
  ): AsyncGenerator<Array<ListRowOf<T, Res, M, K, Key>>, void, undefined>
  make<T = unknown>(options: unknown): AsyncGenerator<T[], void, undefined> {
    // Every form is `P` typed against the catalogue (plus `unchecked`, which is not read); the plan validates it.
    return keysetPages<T>(this.#transport, this.#planner(options as unknown as P, this.#action))
  }
}

/** The options `B` of a list besides `method` and `params`, with `customKeyForResult` read as the literal `K`. */
export type ListBase<B, K extends string> = Omit<B, 'customKeyForResult'> & {
  /** Key of the rows in `result` for methods that wrap them (`crm.item.list` answers `{ items: [...] }`). */
  customKeyForResult?: K
}
