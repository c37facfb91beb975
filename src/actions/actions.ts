import type { DeprecatedCallOverloads } from '../catalogue/call-types.js'
import type { V2BatchRef, V3BatchRef } from '../catalogue/command-types.js'
import type {
  V2DeprecatedCalls,
  V2DeprecatedMethod,
  V2MethodParams,
  V3DeprecatedCalls,
  V3DeprecatedMethod,
  V3MethodParams,
} from '../catalogue/method-types.generated.js'
import type { TypeHttp } from '../http/rest-transport.js'
import type { TransportSource } from '../http/transport-registry.js'
import { BatchAction, BatchByChunkAction } from './batch/batch-action.js'
import { V2BatchRunner } from './batch/v2-batch-runner.js'
import { V3BatchRunner } from './batch/v3-batch-runner.js'
import { CallAction } from './call.js'
import { CallListAction, FetchListAction } from './list/list-actions.js'
import type {
  CatalogueListOptions,
  CatalogueTailOptions,
  ListOptions,
  TailOptions,
  UncheckedListOptions,
  UncheckedTailOptions,
} from './list/list-options.js'
import { planV2Keyset } from './list/v2-keyset-plan.js'
import { planV3Keyset } from './list/v3-keyset-plan.js'
import { planV3Tail } from './list/v3-tail-plan.js'

/**
 * The entry points of one REST API version, each checked against the version's method catalogue `C`; `R` is the
 * form of a reference to an earlier command's result inside a batch; `Call` the type of `call`.
 */
export interface VersionActions<C = Record<string, unknown>, R = never, Call = CallAction<C>> {
  /** One REST call: `call.make({ method, params, requestId })`. */
  readonly call: Call
  /** Every row of a list method in one `Result`, by the id keyset: `callList.make({ method, params })`. */
  readonly callList: CallListAction<CatalogueListOptions<C>, UncheckedListOptions, ListOptions>
  /** A list method page by page, as an async generator: `for await (const rows of fetchList.make(...))`. */
  readonly fetchList: FetchListAction<CatalogueListOptions<C>, UncheckedListOptions, ListOptions>
  /** Up to 50 commands in one request: `batch.make({ calls, options })`. */
  readonly batch: BatchAction<C, R>
  /** Any number of commands in chunks of 50, merged in input order: `batchByChunk.make({ calls, options })`. */
  readonly batchByChunk: BatchByChunkAction<C, R>
}

/**
 * `actions.v2.call`: checked against the v2 catalogue; a call of a deprecated method shows as deprecated in an
 * editor and names the replacement.
 */
export type V2CallAction = CallAction<V2MethodParams, V2DeprecatedMethod> &
  DeprecatedCallOverloads<V2MethodParams, V2DeprecatedCalls>

/** `actions.v3.call`, as {@link V2CallAction} for v3. */
export type V3CallAction = CallAction<V3MethodParams, V3DeprecatedMethod> &
  DeprecatedCallOverloads<V3MethodParams, V3DeprecatedCalls>

/** The REST v2 entry points. */
export type V2Actions = VersionActions<V2MethodParams, V2BatchRef, V2CallAction>

/** The REST v3 entry points: those of v2 plus the keyset `*.tail` methods. */
export interface V3Actions extends VersionActions<V3MethodParams, V3BatchRef, V3CallAction> {
  /** Every row of a `*.tail` method in one `Result`: `callTail.make({ method, cursor })`. */
  readonly callTail: CallListAction<CatalogueTailOptions<V3MethodParams>, UncheckedTailOptions, TailOptions>
  /** A `*.tail` method page by page, as an async generator: `for await (const rows of fetchTail.make(...))`. */
  readonly fetchTail: FetchListAction<CatalogueTailOptions<V3MethodParams>, UncheckedTailOptions, TailOptions>
}

/** `portal.actions`: the REST entry points per API version. */
export interface PortalActions {
  /** REST v2 (`{clientEndpoint}{method}`). */
  readonly v2: V2Actions
  /** REST v3 (`{clientEndpoint}api/{method}`). */
  readonly v3: V3Actions
}

/** Builds the actions of an instance over its transports, looked up at each call. */
export function createActions(transports: TransportSource): PortalActions {
  const v2 = (): TypeHttp => transports.get('v2')
  const v3 = (): TypeHttp => transports.get('v3')
  return {
    v2: {
      // The deprecated overloads are types only: the one `make` serves them all.
      call: new CallAction(v2) as V2CallAction,
      callList: new CallListAction<CatalogueListOptions<V2MethodParams>, UncheckedListOptions, ListOptions>(
        v2,
        planV2Keyset,
        'callList',
      ),
      fetchList: new FetchListAction<CatalogueListOptions<V2MethodParams>, UncheckedListOptions, ListOptions>(
        v2,
        planV2Keyset,
        'fetchList',
      ),
      batch: new BatchAction<V2MethodParams, V2BatchRef>(new V2BatchRunner(v2), 'batch'),
      batchByChunk: new BatchByChunkAction<V2MethodParams, V2BatchRef>(new V2BatchRunner(v2), 'batchByChunk'),
    },
    v3: {
      call: new CallAction(v3) as V3CallAction,
      callList: new CallListAction<CatalogueListOptions<V3MethodParams>, UncheckedListOptions, ListOptions>(
        v3,
        planV3Keyset,
        'callList',
      ),
      fetchList: new FetchListAction<CatalogueListOptions<V3MethodParams>, UncheckedListOptions, ListOptions>(
        v3,
        planV3Keyset,
        'fetchList',
      ),
      callTail: new CallListAction<CatalogueTailOptions<V3MethodParams>, UncheckedTailOptions, TailOptions>(
        v3,
        planV3Tail,
        'callTail',
      ),
      fetchTail: new FetchListAction<CatalogueTailOptions<V3MethodParams>, UncheckedTailOptions, TailOptions>(
        v3,
        planV3Tail,
        'fetchTail',
      ),
      batch: new BatchAction<V3MethodParams, V3BatchRef>(new V3BatchRunner(v3), 'batch'),
      batchByChunk: new BatchByChunkAction<V3MethodParams, V3BatchRef>(new V3BatchRunner(v3), 'batchByChunk'),
    },
  }
}
