import type { DocumentedResult, ResultTypeGiven } from '../../catalogue/call-types.js'
import type { CheckedCalls } from '../../catalogue/command-types.js'
import { SdkError, SdkErrorCode } from '../../errors/sdk-error.js'
import { Result } from '../../results/result.js'
import type { ApiVersion } from '../../types/api-version.js'
import { invalidArgument, isPlainObject, requireHeaderValue } from '../../validation/rules.js'
import { type BatchCommands, readBatchCommands } from './batch-commands.js'
import { notSentOutcome } from './batch-entries.js'
import type { BatchOutcome, BatchRunner, BatchSettings } from './batch-runner.js'
import type {
  BatchCallList,
  BatchCallRecord,
  BatchCalls,
  BatchData,
  BatchDataOf,
  BatchListAjaxData,
  BatchListData,
  BatchOptions,
  BatchRecordAjaxData,
  BatchRecordData,
  CatalogueBatchCallList,
  CatalogueBatchCallRecord,
  CheckedBatchMakeOptions,
  UncheckedBatchMakeOptions,
} from './batch-types.js'

/** Most commands the portal runs in one batch request (`CRestUtil::BATCH_MAX_LENGTH`). */
export const BATCH_MAX_COMMANDS = 50

/** A validated `make()` call. */
interface BatchRequest {
  batch: BatchCommands
  settings: BatchSettings
  returnAjaxResult: boolean
}

/** `options` asking for each command's `AjaxResult`. */
export interface AjaxResults {
  /** With `returnAjaxResult: true`. */
  options: BatchOptions & { returnAjaxResult: true }
}

/** `options` asking for each command's bare `result` (the default). */
export interface BareResults {
  /** Without `returnAjaxResult`, or `false`. */
  options?: BatchOptions & { returnAjaxResult?: false }
}

function readBatchRequest(input: unknown, apiVersion: ApiVersion, action: string): BatchRequest {
  const where = `${apiVersion} ${action}`
  if (!isPlainObject(input))
    throw invalidArgument(`${where}: options`, 'must be an object like { calls, options }')
  const { calls, options, unchecked } = input as { calls: unknown; options?: unknown; unchecked?: unknown }
  // `unchecked` only switches the compile-time check off; it is not sent.
  if (unchecked !== undefined && typeof unchecked !== 'boolean')
    throw invalidArgument(`${where}: options.unchecked`, `must be a boolean, got ${typeof unchecked}`)
  if (options !== undefined && !isPlainObject(options))
    throw invalidArgument(`${where}: options.options`, 'must be an object')
  const given: BatchOptions = options ?? {}
  for (const flag of ['isHaltOnError', 'returnAjaxResult'] as const) {
    if (given[flag] !== undefined && typeof given[flag] !== 'boolean') {
      throw invalidArgument(`${where}: options.${flag}`, `must be a boolean, got ${typeof given[flag]}`)
    }
  }
  // It travels as the X-Request-Id header of every request of the batch.
  if (given.requestId !== undefined) requireHeaderValue(`${where}: options.requestId`, given.requestId)
  if (given.signal !== undefined && !(given.signal instanceof AbortSignal)) {
    throw invalidArgument(`${where}: options.signal`, 'must be an AbortSignal')
  }
  return {
    batch: readBatchCommands(calls as BatchCallList, apiVersion, action),
    settings: {
      haltOnError: given.isHaltOnError ?? true,
      requestId: given.requestId,
      signal: given.signal,
    },
    returnAjaxResult: given.returnAjaxResult ?? false,
  }
}

function toResult(request: BatchRequest, outcome: BatchOutcome): Result<BatchData> {
  const { batch, returnAjaxResult } = request
  const values = outcome.entries.map((entry) =>
    returnAjaxResult ? entry : entry.isSuccess ? entry.getData()?.result : undefined,
  )
  const data =
    batch.shape === 'list'
      ? values
      : Object.fromEntries(batch.commands.map((command, index) => [command.key, values[index]]))
  const result = new Result<BatchData>(data as BatchData)
  for (const error of outcome.errors) result.addError(error)
  return result
}

/**
 * What `batch` and `batchByChunk` share: validation of `{ calls, options }` and results keyed like the input.
 * The `Result` fails when any command failed (its errors name the commands) or the request failed; a failed
 * command is a failed entry, never a throw. Rejects on bad options (`SdkError`) and transport failures (`AjaxError`).
 * `C` is the version's method catalogue, `R` the form of a reference to an earlier command's result, `Res` the
 * documented results.
 */
export abstract class BatchActionBase<C = Record<string, unknown>, R = never, Res = Record<never, never>> {
  /** @internal Sends the commands. */
  protected readonly runner: BatchRunner
  readonly #action: string

  /** @internal Built by the client's actions. */
  constructor(runner: BatchRunner, action: string) {
    this.runner = runner
    this.#action = action
  }

  /**
   * Runs the commands; the data's form follows `calls` (an array for a list, an object with the same keys for
   * named commands) and `returnAjaxResult`. Every command is checked against the catalogue: a documented method
   * with its required parameters, typed; parameter values may be references to earlier results. Each command's
   * result is typed as its method's docs show it. `unchecked: true` beside `calls` skips the check for the whole
   * batch. (Declared first: an editor completes a command from it while the batch does not compile yet.)
   */
  make<const L extends BatchCalls, const O extends BatchOptions = Record<never, never>>(
    options: CheckedBatchMakeOptions<CheckedCalls<C, R, L>> & { options?: O },
  ): Promise<Result<BatchDataOf<L, O, Res>>>
  /** Runs commands not checked against the catalogue (`unchecked: true`); each `AjaxResult`, in input order. */
  make<T = unknown>(
    options: UncheckedBatchMakeOptions<BatchCallList> & AjaxResults,
  ): Promise<Result<BatchListAjaxData<T>>>
  /** Runs named commands not checked against the catalogue; each `AjaxResult`, by name. */
  make<T = unknown>(
    options: UncheckedBatchMakeOptions<BatchCallRecord> & AjaxResults,
  ): Promise<Result<BatchRecordAjaxData<T>>>
  /** Runs commands not checked against the catalogue; each `result` in input order. */
  make<T = unknown>(
    options: UncheckedBatchMakeOptions<BatchCallList> & BareResults,
  ): Promise<Result<BatchListData<T>>>
  /** Runs named commands not checked against the catalogue; each `result` by name. */
  make<T = unknown>(
    options: UncheckedBatchMakeOptions<BatchCallRecord> & BareResults,
  ): Promise<Result<BatchRecordData<T>>>
  /** Runs commands not checked against the catalogue; the data's form follows `calls` and `returnAjaxResult`. */
  make<T = unknown>(options: UncheckedBatchMakeOptions): Promise<Result<BatchData<T>>>
  /** With an explicit result type `T` of every command: each command's `AjaxResult`, in input order. */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: CheckedBatchMakeOptions<CatalogueBatchCallList<C, R>> & AjaxResults,
  ): Promise<Result<BatchListAjaxData<T>>>
  /** With an explicit result type: the named commands' `AjaxResult`s, by name. */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: CheckedBatchMakeOptions<CatalogueBatchCallRecord<C, R>> & AjaxResults,
  ): Promise<Result<BatchRecordAjaxData<T>>>
  /** With an explicit result type: each command's `result` in input order (`undefined` where it failed). */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: CheckedBatchMakeOptions<CatalogueBatchCallList<C, R>> & BareResults,
  ): Promise<Result<BatchListData<T>>>
  /** With an explicit result type: the named commands' `result`s by name (`undefined` where it failed). */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: CheckedBatchMakeOptions<CatalogueBatchCallRecord<C, R>> & BareResults,
  ): Promise<Result<BatchRecordData<T>>>
  /**
   * With an explicit result type: the data's form follows `calls` and `returnAjaxResult`. (Checked against the
   * union of every documented command, which takes longer to type-check than the form without `T`.)
   */
  make<T = DocumentedResult>(
    this: ResultTypeGiven<T>,
    options: CheckedBatchMakeOptions<CatalogueBatchCallList<C, R> | CatalogueBatchCallRecord<C, R>>,
  ): Promise<Result<BatchData<T>>>
  /** Checked as the first form; last, so that a batch that does not compile reports its error (one line). */
  make<const L extends BatchCalls, const O extends BatchOptions = Record<never, never>>(
    options: CheckedBatchMakeOptions<CheckedCalls<C, R, L>> & { options?: O },
  ): Promise<Result<BatchDataOf<L, O, Res>>>
  async make(options: unknown): Promise<Result<BatchData>> {
    const request = readBatchRequest(options, this.runner.apiVersion, this.#action)
    const { commands } = request.batch
    if (commands.length === 0) return toResult(request, { entries: [], errors: [] })
    return toResult(request, await this.execute(request.batch, request.settings))
  }

  /** @internal Sends the validated commands (at least one). */
  protected abstract execute(batch: BatchCommands, settings: BatchSettings): Promise<BatchOutcome>
}

/** `actions.vN.batch`: up to 50 commands in one request; more is an `SdkError` pointing to `batchByChunk`. */
export class BatchAction<
  C = Record<string, unknown>,
  R = never,
  Res = Record<never, never>,
> extends BatchActionBase<C, R, Res> {
  /** @internal */
  protected execute(batch: BatchCommands, settings: BatchSettings): Promise<BatchOutcome> {
    const count = batch.commands.length
    if (count > BATCH_MAX_COMMANDS) {
      return Promise.reject(
        new SdkError({
          code: SdkErrorCode.BatchTooLarge,
          message: `${this.runner.apiVersion} batch: ${count} commands, but one batch carries at most ${BATCH_MAX_COMMANDS}; use batchByChunk`,
        }),
      )
    }
    return this.runner.run(batch.commands, settings)
  }
}

/**
 * `actions.vN.batchByChunk`: any number of commands, sent one chunk of 50 after the other and merged in input
 * order. Under `isHaltOnError` (default) a chunk with a failed command ends the run: the later chunks are not sent
 * and their commands come back not run. References between commands (`$result[...]`, `$ref`) work only within
 * a chunk.
 */
export class BatchByChunkAction<
  C = Record<string, unknown>,
  R = never,
  Res = Record<never, never>,
> extends BatchActionBase<C, R, Res> {
  /** @internal */
  protected async execute(batch: BatchCommands, settings: BatchSettings): Promise<BatchOutcome> {
    const merged: BatchOutcome = { entries: [], errors: [] }
    let halted = false
    for (let start = 0; start < batch.commands.length; start += BATCH_MAX_COMMANDS) {
      const chunk = batch.commands.slice(start, start + BATCH_MAX_COMMANDS)
      const outcome = halted
        ? notSentOutcome(this.runner.apiVersion, chunk, settings)
        : await this.runner.run(chunk, settings)
      merged.entries.push(...outcome.entries)
      merged.errors.push(...outcome.errors)
      if (settings.haltOnError && outcome.entries.some((entry) => !entry.isSuccess)) halted = true
    }
    return merged
  }
}
