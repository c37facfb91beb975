import type { DocumentedResult, ResultOf } from '../../catalogue/call-types.js'
import type { MethodOptions } from '../../catalogue/command-types.js'

/** Options of `callList.make` / `fetchList.make` (v2 and v3), with any method and parameters. */
export interface ListOptions {
  /** A list method, for example `crm.contact.list` (v2) or `tasks.task.list` (v3). */
  method: string
  /**
   * Method parameters: `select`, `filter` and the rest. The paging parameters belong to the algorithm: v2 `order`
   * and `start`, v3 `order`, `pagination.page` and `pagination.offset` are refused unless they ask for what the
   * algorithm sends anyway (ascending id, `start: -1`). v3 `pagination.limit` sets the page size (default 50).
   */
  params?: Record<string, unknown>
  /** Key of the id in a row. Default `'ID'` on v2, `'id'` on v3. */
  idKey?: string
  /** Key of the id in `order` and `filter`. Default: `idKey`. */
  cursorIdKey?: string
  /**
   * Key of the rows in `result` for methods that wrap them (`crm.item.list` answers `{ items: [...] }`).
   * Default: none on v2 (`result` is the list), `'items'` on v3.
   */
  customKeyForResult?: string
  /** A label sent with every page request as `X-Request-Id`. */
  requestId?: string
  /** Stops the listing: the page in flight is cancelled and no further page is asked for. */
  signal?: AbortSignal
}

/** The keyset cursor of a v3 `*.tail` method (`main.eventlog.tail`). */
export interface TailCursor {
  /** Field the rows are ordered and continued by. Default `'id'`. */
  field?: string
  /** Start after this value. Default: the method's own default (0, the start of the log). */
  value?: number | string
  /** `'ASC'` (default) or `'DESC'`. */
  order?: 'ASC' | 'DESC'
  /** Rows per page. Default 50. */
  limit?: number
}

/** Options of v3 `callTail.make` / `fetchTail.make`, with any method and parameters. */
export interface TailOptions {
  /** A keyset method, for example `main.eventlog.tail`. */
  method: string
  /** Method parameters (`select`, `filter`); the cursor goes in {@link TailOptions.cursor}. */
  params?: Record<string, unknown>
  /** Where to start and how to page; `cursor.value` is moved by the algorithm. */
  cursor?: TailCursor
  /** Key of the rows in `result`. Default `'items'`. */
  customKeyForResult?: string
  /** A label sent with every page request as `X-Request-Id`. */
  requestId?: string
  /** Stops the listing: the page in flight is cancelled and no further page is asked for. */
  signal?: AbortSignal
}

/**
 * The escape hatch of a list: a method or parameters the catalogue lacks, with `unchecked: true`. Sent exactly as a
 * checked list.
 */
export interface UncheckedListOptions extends ListOptions {
  /** Skips the catalogue check. */
  unchecked: true
}

/** The escape hatch of a `*.tail` list, as {@link UncheckedListOptions}. */
export interface UncheckedTailOptions extends TailOptions {
  /** Skips the catalogue check. */
  unchecked: true
}

/**
 * Options of `callList.make` / `fetchList.make` checked against the catalogue `C`: a documented method with its
 * required parameters, typed.
 */
export type CatalogueListOptions<C> = MethodOptions<C, ListExtras>

/**
 * Written-out options of a list that gives the row type, behind an interface: TypeScript reads a type argument
 * wherever the generic type that takes it is named (each request that touches `portal.actions`), and an
 * interface's members only when they are needed, here when a list that gives the row type is checked.
 */
export interface WrittenListOptions {
  /** One union member per documented method (`V2ListCall`). */
  readonly options: unknown
}

/**
 * The options of a list that gives the row type (`make<Row>(...)`), one union member per method of `C`: those
 * `Typed` holds (the built-in catalogues' written-out `V2ListCall`, which TypeScript reads as written), else, for
 * `never`, built from `C` (a catalogue of a portal's own types). A conditional type in the signature rather than a
 * default type argument, which TypeScript would compute wherever the generic type is named (14 500 type
 * instantiations on each request that touched the actions): this is computed when the signature is tried.
 */
export type TypedListOptions<C, B, Typed> = [Typed] extends [never]
  ? MethodOptions<C, B>
  : Typed extends WrittenListOptions
    ? Typed['options']
    : never

/** The options of a list besides `method` and `params`. */
export type ListExtras = Omit<ListOptions, 'method' | 'params'>

/**
 * The options of a list of the method `M` of the catalogue `C` that has a required parameter (so `params` is
 * required): a member of the written-out unions of the generated catalogue (`V2ListCall`), which the lists check a
 * call that gives the row type against. An interface, so that TypeScript reads `C[M]` only when a call is checked
 * against it.
 */
export interface ListCall<C, M extends keyof C> extends ListExtras {
  /** A documented method name. */
  method: M
  /** The method's parameters. */
  params: C[M]
  /** Not set: checked against the catalogue. */
  unchecked?: false
}

/** The options of a list of the method `M` of `C` whose parameters are all optional, as {@link ListCall}. */
export interface OptionalParamsListCall<C, M extends keyof C> extends ListExtras {
  /** A documented method name. */
  method: M
  /** The method's parameters. */
  params?: C[M]
  /** Not set: checked against the catalogue. */
  unchecked?: false
}

/** The options of a `*.tail` list besides `method` and `params`. */
export type TailExtras = Omit<TailOptions, 'method' | 'params'>

/** The documented `*.tail` methods of the catalogue `C`. */
export type TailMethods<C> = Pick<C, Extract<keyof C, `${string}.tail`>>

/**
 * Options of `callTail.make` / `fetchTail.make` checked against the catalogue `C`: a documented `*.tail` method
 * with its parameters typed.
 */
export type CatalogueTailOptions<C> = MethodOptions<TailMethods<C>, TailExtras>

/**
 * The rows of a list whose documented result is `R`: the items of `R`, or with `Key` (`customKeyForResult`) the
 * items under that key; `unknown` when `R` is not such a list.
 */
export type RowsOf<R, Key> = [Key] extends [never]
  ? R extends readonly (infer X)[]
    ? X
    : unknown
  : R extends { readonly [P in Key & string]: readonly (infer X)[] }
    ? X
    : unknown

/**
 * The row type of a list of the method `M`: `T` when the caller gave one, else the rows of the method's documented
 * result in `Res`, under `K` (`customKeyForResult`) or, without it, the version's default key `DefaultKey`.
 */
export type ListRowOf<T, Res, M, K, DefaultKey> = [T] extends [DocumentedResult]
  ? RowsOf<ResultOf<Res, M>, [K] extends [never] ? DefaultKey : K>
  : T

/**
 * The row type of a list call with options `O`: `T` when the caller gave one, else the rows of the documented
 * result of `O`'s method in `Res`, under `O`'s `customKeyForResult` or the version's default key `DefaultKey`.
 */
export type ListRow<T, Res, O, DefaultKey> = [T] extends [DocumentedResult]
  ? RowsOf<
      ResultOf<Res, O extends { readonly method: infer M } ? M : never>,
      O extends { readonly customKeyForResult: infer K extends string } ? K : DefaultKey
    >
  : T
