import type { ResultOf } from '../../catalogue/call-types.js'
import type { MethodCommand, MethodOf, MethodTuple } from '../../catalogue/command-types.js'
import type { AjaxResult } from '../../results/ajax-result.js'

/** A batch command as a tuple, not checked against the catalogue: `['crm.contact.get', { ID: 1 }]`. */
export type BatchCallTuple = readonly [method: string, params?: Record<string, unknown>]

/**
 * A batch command as an object, not checked against the catalogue; `as` names it, so that later commands can
 * refer to its result.
 */
export interface BatchCallObject {
  /** REST method name. */
  method: string
  /** Method parameters (v3: sent as the command's `query`). */
  params?: Record<string, unknown>
  /** Name of the command: its key in a v2 `cmd` map (`$result[name]`), its `as` alias in a v3 batch (`$ref`). */
  as?: string
}

/**
 * One command checked against the catalogue `C`: `[method, params]` or `{ method, params, as? }` for a documented
 * method with its required parameters, parameter values typed or references `R` to earlier results.
 */
export type CatalogueBatchCall<C, R> = MethodTuple<C, R> | MethodCommand<C, R>

/** Checked commands as a list: results come back as an array in the same order. */
export type CatalogueBatchCallList<C, R> = readonly CatalogueBatchCall<C, R>[]

/**
 * Checked commands by name: results come back as an object with the same keys. (An object type, not
 * `Readonly<Record<...>>`: TypeScript reads its commands only when a batch is checked against it, not each time a
 * signature naming it is tried.)
 */
export type CatalogueBatchCallRecord<C, R> = { readonly [name: string]: CatalogueBatchCall<C, R> }

/** One command, either form, not checked against the catalogue. */
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

/** Options of `batch.make` / `batchByChunk.make`, not checked against the catalogue. */
export interface BatchMakeOptions<C extends BatchCalls = BatchCalls> {
  /** The commands: `[method, params][]`, `{ name: [method, params] }` or `{ method, params, as? }[]`. */
  calls: C
  /** Halting, result form, request label, cancellation. */
  options?: BatchOptions
  /** `true`: the commands are not checked against the catalogue (see {@link UncheckedBatchMakeOptions}). */
  unchecked?: boolean
}

/** Options of `batch.make` / `batchByChunk.make` whose commands are checked against the catalogue. */
export interface CheckedBatchMakeOptions<Calls> {
  /** The commands, each checked: see {@link CatalogueBatchCall}. */
  calls: Calls
  /** Halting, result form, request label, cancellation. */
  options?: BatchOptions
  /** Not set: every command is checked. */
  unchecked?: false
}

/**
 * The escape hatch of a batch: `unchecked: true` beside `calls` switches the check off for every command of the
 * batch (an application's own methods, methods newer than the catalogue, names held in a `string`). It is for the
 * whole batch: a command cannot opt out alone, so that a misspelt command never passes for an unchecked one. Sent
 * exactly as a checked batch.
 */
export interface UncheckedBatchMakeOptions<C extends BatchCalls = BatchCalls> extends BatchMakeOptions<C> {
  /** Skips the catalogue check for every command of the batch. */
  unchecked: true
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

/** Whether `O` asks for each command's `AjaxResult` (`true`), its bare `result` (`false`), or may do either. */
export type AjaxMode<O> = O extends { returnAjaxResult: true }
  ? true
  : O extends { returnAjaxResult?: false | undefined }
    ? false
    : boolean

/** The value of one command in the batch's data: its `result`, or its `AjaxResult` with `returnAjaxResult`. */
export type CommandData<Ajax, T> = Ajax extends true ? AjaxResult<T> : T | undefined

/**
 * The data of a batch of commands `L` with options `O`: an array in input order for a list of commands, an
 * object with the same keys for named commands; each value the command's `result` (`undefined` where it failed)
 * or, with `returnAjaxResult: true`, its `AjaxResult`. A command's result is its method's documented result in
 * `Res` (`unknown` where the docs show none); in a list, the union of the commands' results.
 */
export type BatchDataOf<L, O, Res = Record<never, never>> = L extends readonly unknown[]
  ? Array<CommandData<AjaxMode<O>, ResultOf<Res, MethodOf<L[number]>>>>
  : { -readonly [K in keyof L]: CommandData<AjaxMode<O>, ResultOf<Res, MethodOf<L[K]>>> }
