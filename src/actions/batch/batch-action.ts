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
  BatchData,
  BatchListAjaxData,
  BatchListData,
  BatchMakeOptions,
  BatchOptions,
  BatchRecordAjaxData,
  BatchRecordData,
} from './batch-types.js'

/** Most commands the portal runs in one batch request (`CRestUtil::BATCH_MAX_LENGTH`). */
export const BATCH_MAX_COMMANDS = 50

/** A validated `make()` call. */
interface BatchRequest {
  batch: BatchCommands
  settings: BatchSettings
  returnAjaxResult: boolean
}

function readBatchRequest(input: unknown, apiVersion: ApiVersion, action: string): BatchRequest {
  const where = `${apiVersion} ${action}`
  if (!isPlainObject(input))
    throw invalidArgument(`${where}: options`, 'must be an object like { calls, options }')
  const { calls, options } = input as { calls: unknown; options?: unknown }
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
 */
export abstract class BatchActionBase {
  /** @internal Sends the commands. */
  protected readonly runner: BatchRunner
  readonly #action: string

  /** @internal Built by the client's actions. */
  constructor(runner: BatchRunner, action: string) {
    this.runner = runner
    this.#action = action
  }

  /** Runs the commands; each command's `AjaxResult`, in input order. */
  make<T = unknown>(
    options: BatchMakeOptions<BatchCallList> & { options: BatchOptions & { returnAjaxResult: true } },
  ): Promise<Result<BatchListAjaxData<T>>>
  /** Runs the named commands; each command's `AjaxResult`, by name. */
  make<T = unknown>(
    options: BatchMakeOptions<BatchCallRecord> & { options: BatchOptions & { returnAjaxResult: true } },
  ): Promise<Result<BatchRecordAjaxData<T>>>
  /** Runs the commands; each command's `result` in input order (`undefined` where it failed). */
  make<T = unknown>(
    options: BatchMakeOptions<BatchCallList> & { options?: BatchOptions & { returnAjaxResult?: false } },
  ): Promise<Result<BatchListData<T>>>
  /** Runs the named commands; each command's `result` by name (`undefined` where it failed). */
  make<T = unknown>(
    options: BatchMakeOptions<BatchCallRecord> & { options?: BatchOptions & { returnAjaxResult?: false } },
  ): Promise<Result<BatchRecordData<T>>>
  /** Runs the commands; the data's form follows `calls` and `returnAjaxResult`. */
  make<T = unknown>(options: BatchMakeOptions): Promise<Result<BatchData<T>>>
  async make(options: BatchMakeOptions): Promise<Result<BatchData>> {
    const request = readBatchRequest(options, this.runner.apiVersion, this.#action)
    const { commands } = request.batch
    if (commands.length === 0) return toResult(request, { entries: [], errors: [] })
    return toResult(request, await this.execute(request.batch, request.settings))
  }

  /** @internal Sends the validated commands (at least one). */
  protected abstract execute(batch: BatchCommands, settings: BatchSettings): Promise<BatchOutcome>
}

/** `actions.vN.batch`: up to 50 commands in one request; more is an `SdkError` pointing to `batchByChunk`. */
export class BatchAction extends BatchActionBase {
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
export class BatchByChunkAction extends BatchActionBase {
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
