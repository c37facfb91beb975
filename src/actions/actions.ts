import type { V2BatchRef, V3BatchRef } from '../catalogue/command-types.js'
import type {
  V2CallMake,
  V2ListCall,
  V2MethodParams,
  V3CallMake,
  V3ListCall,
  V3MethodParams,
} from '../catalogue/method-types.generated.js'
import type { V2MethodResults, V3MethodResults } from '../catalogue/result-types.generated.js'
import type { TypeHttp } from '../http/rest-transport.js'
import type { TransportSource } from '../http/transport-registry.js'
import { BatchAction, BatchByChunkAction } from './batch/batch-action.js'
import { V2BatchRunner } from './batch/v2-batch-runner.js'
import { V3BatchRunner } from './batch/v3-batch-runner.js'
import { CallAction } from './call.js'
import { CallListAction, FetchListAction } from './list/list-actions.js'
import type {
  ListExtras,
  ListOptions,
  TailExtras,
  TailMethods,
  TailOptions,
  UncheckedListOptions,
  UncheckedTailOptions,
  WrittenListOptions,
} from './list/list-options.js'
import { planV2Keyset } from './list/v2-keyset-plan.js'
import { planV3Keyset } from './list/v3-keyset-plan.js'
import { planV3Tail } from './list/v3-tail-plan.js'
import { type MethodsByName, methodsByName } from './methods.js'

/**
 * The entry points of one REST API version, each checked against the version's method catalogue `C`; `R` is the
 * form of a reference to an earlier command's result inside a batch; `Call` the type of `call`; `Res` the
 * documented results; `Key` where a list's rows are in its result by default (v3: `items`); `Lists` the options of a
 * list that gives the row type (`callList.make<Row>(...)`), one union member per method of `C` written out, or
 * `never` to build them from `C` (see `TypedListOptions`).
 */
export interface VersionActions<
  C = Record<string, unknown>,
  R = never,
  Call = CallAction<C>,
  Res = Record<never, never>,
  Key = never,
  Lists = never,
> {
  /** One REST call: `call.make({ method, params, requestId })`. */
  readonly call: Call
  /**
   * One REST call by the method's name: `methods['crm.item.add'](params, { requestId })`, as `call.make`; an editor
   * shows the method's doc on its name ({@link MethodsByName}).
   */
  readonly methods: MethodsByName<C, Res>
  /** Every row of a list method in one `Result`, by the id keyset: `callList.make({ method, params })`. */
  readonly callList: CallListAction<C, ListExtras, UncheckedListOptions, ListOptions, Res, Key, Lists>
  /** A list method page by page, as an async generator: `for await (const rows of fetchList.make(...))`. */
  readonly fetchList: FetchListAction<C, ListExtras, UncheckedListOptions, ListOptions, Res, Key, Lists>
  /** Up to 50 commands in one request: `batch.make({ calls, options })`. */
  readonly batch: BatchAction<C, R, Res>
  /** Any number of commands in chunks of 50, merged in input order: `batchByChunk.make({ calls, options })`. */
  readonly batchByChunk: BatchByChunkAction<C, R, Res>
}

/**
 * `actions.v2.call`: checked against the v2 catalogue, the result typed as the docs show it; a call of a deprecated
 * method shows as deprecated in an editor and names the replacement.
 */
export interface V2CallAction {
  /** One REST v2 call: `make({ method, params, requestId })` (its overloads: {@link V2CallMake}). */
  readonly make: V2CallMake
}

/** `actions.v3.call`, as {@link V2CallAction} for v3. */
export interface V3CallAction {
  /** One REST v3 call: `make({ method, params, requestId })` (its overloads: {@link V3CallMake}). */
  readonly make: V3CallMake
}

/** The options of a v2 list that gives the row type, written out ({@link V2ListCall}; see `WrittenListOptions`). */
export interface V2ListOptions extends WrittenListOptions {
  /** {@link V2ListCall}. */
  readonly options: V2ListCall
}

/** The options of a v3 list that gives the row type, written out ({@link V3ListCall}). */
export interface V3ListOptions extends WrittenListOptions {
  /** {@link V3ListCall}. */
  readonly options: V3ListCall
}

/** The REST v2 entry points. */
export type V2Actions = VersionActions<
  V2MethodParams,
  V2BatchRef,
  V2CallAction,
  V2MethodResults,
  never,
  V2ListOptions
>

/** The REST v3 entry points: those of v2 plus the keyset `*.tail` methods. */
export interface V3Actions
  extends VersionActions<V3MethodParams, V3BatchRef, V3CallAction, V3MethodResults, 'items', V3ListOptions> {
  /** Every row of a `*.tail` method in one `Result`: `callTail.make({ method, cursor })`. */
  readonly callTail: CallListAction<
    TailMethods<V3MethodParams>,
    TailExtras,
    UncheckedTailOptions,
    TailOptions,
    V3MethodResults,
    'items'
  >
  /** A `*.tail` method page by page, as an async generator: `for await (const rows of fetchTail.make(...))`. */
  readonly fetchTail: FetchListAction<
    TailMethods<V3MethodParams>,
    TailExtras,
    UncheckedTailOptions,
    TailOptions,
    V3MethodResults,
    'items'
  >
}

/** `portal.actions`: the REST entry points per API version. */
export interface PortalActions {
  /** REST v2 (`{clientEndpoint}{method}`). */
  readonly v2: V2Actions
  /** REST v3 (`{clientEndpoint}api/{method}`). */
  readonly v3: V3Actions
}

/** The v2 entry points, each built on its first use: a client that only calls holds two small objects. */
class LazyV2Actions implements V2Actions {
  readonly #http: () => TypeHttp
  #call: V2CallAction | undefined
  #methods: V2Actions['methods'] | undefined
  #callList: V2Actions['callList'] | undefined
  #fetchList: V2Actions['fetchList'] | undefined
  #batch: V2Actions['batch'] | undefined
  #batchByChunk: V2Actions['batchByChunk'] | undefined

  constructor(http: () => TypeHttp) {
    this.#http = http
  }

  get call(): V2CallAction {
    // The deprecated overloads are types only: the one `make` serves them all. (Through `unknown`: comparing the
    // two types would spread the options over every method.)
    this.#call ??= new CallAction(this.#http) as unknown as V2CallAction
    return this.#call
  }

  get methods(): V2Actions['methods'] {
    this.#methods ??= methodsByName<V2MethodParams, V2MethodResults>(this.#http)
    return this.#methods
  }

  get callList(): V2Actions['callList'] {
    this.#callList ??= new CallListAction<
      V2MethodParams,
      ListExtras,
      UncheckedListOptions,
      ListOptions,
      V2MethodResults,
      never,
      V2ListOptions
    >(this.#http, planV2Keyset, 'callList')
    return this.#callList
  }

  get fetchList(): V2Actions['fetchList'] {
    this.#fetchList ??= new FetchListAction<
      V2MethodParams,
      ListExtras,
      UncheckedListOptions,
      ListOptions,
      V2MethodResults,
      never,
      V2ListOptions
    >(this.#http, planV2Keyset, 'fetchList')
    return this.#fetchList
  }

  get batch(): V2Actions['batch'] {
    this.#batch ??= new BatchAction<V2MethodParams, V2BatchRef, V2MethodResults>(
      new V2BatchRunner(this.#http),
      'batch',
    )
    return this.#batch
  }

  get batchByChunk(): V2Actions['batchByChunk'] {
    this.#batchByChunk ??= new BatchByChunkAction<V2MethodParams, V2BatchRef, V2MethodResults>(
      new V2BatchRunner(this.#http),
      'batchByChunk',
    )
    return this.#batchByChunk
  }
}

/** The v3 entry points, each built on its first use (see {@link LazyV2Actions}). */
class LazyV3Actions implements V3Actions {
  readonly #http: () => TypeHttp
  #call: V3CallAction | undefined
  #methods: V3Actions['methods'] | undefined
  #callList: V3Actions['callList'] | undefined
  #fetchList: V3Actions['fetchList'] | undefined
  #callTail: V3Actions['callTail'] | undefined
  #fetchTail: V3Actions['fetchTail'] | undefined
  #batch: V3Actions['batch'] | undefined
  #batchByChunk: V3Actions['batchByChunk'] | undefined

  constructor(http: () => TypeHttp) {
    this.#http = http
  }

  get call(): V3CallAction {
    this.#call ??= new CallAction(this.#http) as unknown as V3CallAction
    return this.#call
  }

  get methods(): V3Actions['methods'] {
    this.#methods ??= methodsByName<V3MethodParams, V3MethodResults>(this.#http)
    return this.#methods
  }

  get callList(): V3Actions['callList'] {
    this.#callList ??= new CallListAction<
      V3MethodParams,
      ListExtras,
      UncheckedListOptions,
      ListOptions,
      V3MethodResults,
      'items',
      V3ListOptions
    >(this.#http, planV3Keyset, 'callList')
    return this.#callList
  }

  get fetchList(): V3Actions['fetchList'] {
    this.#fetchList ??= new FetchListAction<
      V3MethodParams,
      ListExtras,
      UncheckedListOptions,
      ListOptions,
      V3MethodResults,
      'items',
      V3ListOptions
    >(this.#http, planV3Keyset, 'fetchList')
    return this.#fetchList
  }

  get callTail(): V3Actions['callTail'] {
    this.#callTail ??= new CallListAction<
      TailMethods<V3MethodParams>,
      TailExtras,
      UncheckedTailOptions,
      TailOptions,
      V3MethodResults,
      'items'
    >(this.#http, planV3Tail, 'callTail')
    return this.#callTail
  }

  get fetchTail(): V3Actions['fetchTail'] {
    this.#fetchTail ??= new FetchListAction<
      TailMethods<V3MethodParams>,
      TailExtras,
      UncheckedTailOptions,
      TailOptions,
      V3MethodResults,
      'items'
    >(this.#http, planV3Tail, 'fetchTail')
    return this.#fetchTail
  }

  get batch(): V3Actions['batch'] {
    this.#batch ??= new BatchAction<V3MethodParams, V3BatchRef, V3MethodResults>(
      new V3BatchRunner(this.#http),
      'batch',
    )
    return this.#batch
  }

  get batchByChunk(): V3Actions['batchByChunk'] {
    this.#batchByChunk ??= new BatchByChunkAction<V3MethodParams, V3BatchRef, V3MethodResults>(
      new V3BatchRunner(this.#http),
      'batchByChunk',
    )
    return this.#batchByChunk
  }
}

/**
 * Builds the actions of an instance over its transports, looked up at each call. Each entry point is made on its
 * first use: a held portal that only calls (a fleet's thousands) holds no list, tail or batch objects.
 */
export function createActions(transports: TransportSource): PortalActions {
  return {
    v2: new LazyV2Actions(() => transports.get('v2')),
    v3: new LazyV3Actions(() => transports.get('v3')),
  }
}
