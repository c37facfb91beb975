import { SdkError, SdkErrorCode } from '../../errors/sdk-error.js'
import { type AjaxPayload, type AjaxQuery, AjaxResult } from '../../results/ajax-result.js'
import type { ApiVersion } from '../../types/api-version.js'
import type { BatchCommand } from './batch-commands.js'
import type { BatchOutcome, BatchSettings } from './batch-runner.js'

/** What a command asked, as its `AjaxResult` reports it. */
export function commandQuery(
  apiVersion: ApiVersion,
  command: BatchCommand,
  settings: BatchSettings,
): AjaxQuery {
  return {
    apiVersion,
    method: command.method,
    params: command.params,
    ...(settings.requestId === undefined ? {} : { requestId: settings.requestId }),
  }
}

/** The result of a command that succeeded. */
export function succeededEntry(
  apiVersion: ApiVersion,
  command: BatchCommand,
  settings: BatchSettings,
  status: number,
  payload: AjaxPayload<unknown>,
): AjaxResult<unknown> {
  return new AjaxResult({ payload, status, query: commandQuery(apiVersion, command, settings) })
}

/** The result of a command that failed or was not run. */
export function failedEntry(
  apiVersion: ApiVersion,
  command: BatchCommand,
  settings: BatchSettings,
  status: number,
  errors: readonly SdkError[],
): AjaxResult<unknown> {
  const entry = new AjaxResult<unknown>({ status, query: commandQuery(apiVersion, command, settings) })
  for (const error of errors) entry.addError(error)
  return entry
}

/** The error a command that was not run carries. */
export function notRunError(reason: string): SdkError {
  return new SdkError({ code: SdkErrorCode.BatchCommandNotRun, message: `not run: ${reason}` })
}

/** A command's error as the batch as a whole reports it: the same code, the message naming the command. */
export function namedCommandError(command: BatchCommand, error: SdkError): SdkError {
  return new SdkError({
    code: error.code,
    message: `command ${command.key} (${command.method}): ${error.message}`,
    description: error.description,
    status: error.status,
  })
}

/** The outcome of a batch request that failed as a whole: every command carries the request's errors. */
export function requestFailedOutcome(
  apiVersion: ApiVersion,
  commands: readonly BatchCommand[],
  settings: BatchSettings,
  response: AjaxResult<unknown>,
): BatchOutcome {
  const errors = [...response.getErrors()]
  return {
    entries: commands.map((command) =>
      failedEntry(apiVersion, command, settings, response.getStatus(), errors),
    ),
    errors,
  }
}

/** The outcome of commands that were never sent (a chunk after a failed one under `isHaltOnError`). */
export function notSentOutcome(
  apiVersion: ApiVersion,
  commands: readonly BatchCommand[],
  settings: BatchSettings,
): BatchOutcome {
  const error = notRunError('an earlier chunk failed and isHaltOnError is set')
  return {
    entries: commands.map((command) => failedEntry(apiVersion, command, settings, 0, [error])),
    errors: [],
  }
}
