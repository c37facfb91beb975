import type { V2BatchRef, V3BatchRef } from '../catalogue/command-types.js'
import type { V2MethodParams, V3MethodParams } from '../catalogue/method-types.generated.js'
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
 * form of a reference to an earlier command's result inside a batch.
 */
export interface VersionActions<C = Record<string, unknown>, R = never> {
  /** One REST call: `call.make({ method, params, requestId })`. */
  readonly call: CallAction<C>
  /** Every row of a list method in one `Result`, by the id keyset: `callList.make({ method, params })`. */
  readonly callList: CallListAction<CatalogueListOptions<C>, UncheckedListOptions, ListOptions>
  /** A list method page by page, as an async generator: `for await (const rows of fetchList.make(...))`. */
  readonly fetchList: FetchListAction<CatalogueListOptions<C>, UncheckedListOptions, ListOptions>
  /** Up to 50 commands in one request: `batch.make({ calls, options })`. */
  readonly batch: BatchAction<C, R>
  /** Any number of commands in chunks of 50, merged in input order: `batchByChunk.make({ calls, options })`. */
  readonly batchByChunk: BatchByChunkAction<C, R>
}

/** The REST v2 entry points. */
export type V2Actions = VersionActions<V2MethodParams, V2BatchRef>

/** The REST v3 entry points: those of v2 plus the keyset `*.tail` methods. */
export interface V3Actions extends VersionActions<V3MethodParams, V3BatchRef> {
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
      call: new CallAction<V2MethodParams>(v2),
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
      call: new CallAction<V3MethodParams>(v3),
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
