import type { AjaxResult } from '../../results/ajax-result.js'

/** A batch command as a tuple: `['crm.contact.get', { ID: 1 }]`. */
export type BatchCallTuple = readonly [method: string, params?: Record<string, unknown>]

/** A batch command as an object; `as` names it, so that later commands can refer to its result. */
export interface BatchCallObject {
  /** REST method name. */
  method: string
  /** Method parameters (v3: sent as the command's `query`). */
  params?: Record<string, unknown>
  /** Name of the command: its key in a v2 `cmd` map (`$result[name]`), its `as` alias in a v3 batch (`$ref`). */
  as?: string
}

/** One command, either form. */
export type BatchCall = BatchCallTuple | BatchCallObject

/** Commands as a list: results come back as an array in the same order. */
export type BatchCallList = readonly BatchCall[]

/** Commands by name: results come back as an object with the same keys. */
export type BatchCallRecord = Readonly<Record<string, BatchCall>>

/** The commands of a batch, in any of the accepted forms. */
export type BatchCalls = BatchCallList | BatchCallRecord

/** Options of a batch. */
export interface BatchOptions {
  /**
   * v2: stop at the first failing command (`halt: 1`); later commands are not run. `batchByChunk` then sends no
   * further chunk. v3 batches always stop at the first failure; there it only decides whether `batchByChunk` goes
   * on with the next chunk. Default `true`.
   */
  isHaltOnError?: boolean
  /** Give each command's result as an `AjaxResult` (with its errors) instead of its bare `result`. Default `false`. */
  returnAjaxResult?: boolean
  /** A label sent with the batch request as `X-Request-Id`. */
  requestId?: string
  /** Cancels the batch request (and, in `batchByChunk`, the chunks not sent yet). */
  signal?: AbortSignal
}

/** Options of `batch.make` / `batchByChunk.make`. */
export interface BatchMakeOptions<C extends BatchCalls = BatchCalls> {
  /** The commands: `[method, params][]`, `{ name: [method, params] }` or `{ method, params, as? }[]`. */
  calls: C
  /** Halting, result form, request label, cancellation. */
  options?: BatchOptions
}

/** Results of a list of commands: each command's `result`, `undefined` for a command that failed or did not run. */
export type BatchListData<T = unknown> = Array<T | undefined>

/** Results of named commands: each command's `result`, `undefined` for a command that failed or did not run. */
export type BatchRecordData<T = unknown> = Record<string, T | undefined>

/** Results of a list of commands as `AjaxResult`s, one per command in order. */
export type BatchListAjaxData<T = unknown> = Array<AjaxResult<T>>

/** Results of named commands as `AjaxResult`s. */
export type BatchRecordAjaxData<T = unknown> = Record<string, AjaxResult<T>>

/** Any batch data. */
export type BatchData<T = unknown> =
  | BatchListData<T>
  | BatchRecordData<T>
  | BatchListAjaxData<T>
  | BatchRecordAjaxData<T>
