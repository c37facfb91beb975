import { SdkError, SdkErrorCode } from '../../errors/sdk-error.js'
import { portalErrorsToSdkErrors, readPortalError } from '../../http/payload.js'
import type { TypeHttp } from '../../http/rest-transport.js'
import { commandsRead } from '../../http/retry-policy.js'
import type { AjaxPayload, PayloadTime } from '../../results/ajax-result.js'
import { ApiVersion } from '../../types/api-version.js'
import { isPlainObject } from '../../validation/rules.js'
import type { BatchCommand } from './batch-commands.js'
import {
  failedEntry,
  namedCommandError,
  notRunError,
  requestFailedOutcome,
  succeededEntry,
} from './batch-entries.js'
import type { BatchOutcome, BatchRunner, BatchSettings } from './batch-runner.js'
import { toBatchCommand } from './php-query.js'

/** One of the five maps of a v2 batch answer; PHP sends an empty map as `[]` and keys `0..n-1` as an array. */
function readPhpMap(value: unknown): Map<string, unknown> {
  if (Array.isArray(value)) return new Map(value.map((item, index) => [String(index), item]))
  if (isPlainObject(value)) return new Map(Object.entries(value))
  return new Map()
}

function commandErrors(value: unknown): SdkError[] {
  const error = readPortalError(value) ?? { code: 'ERROR', description: String(value), validation: [] }
  // A command's error has no HTTP status of its own: the batch answer is 200 whatever its commands did.
  return portalErrorsToSdkErrors(error, 0)
}

/**
 * v2 `batch` (contract 6.1): `{ halt, cmd: { key: 'method?query' } }` with each query in PHP bracket notation;
 * the answer's five maps (`result`, `result_error`, `result_total`, `result_next`, `result_time`) are split back
 * into one result per command. A command missing from both `result` and `result_error` was skipped by `halt`.
 */
export class V2BatchRunner implements BatchRunner {
  readonly apiVersion = ApiVersion.v2
  readonly #transport: () => TypeHttp

  constructor(transport: () => TypeHttp) {
    this.#transport = transport
  }

  async run(commands: readonly BatchCommand[], settings: BatchSettings): Promise<BatchOutcome> {
    const cmd = Object.fromEntries(
      commands.map((command) => [command.key, toBatchCommand(command.method, command.params)]),
    )
    const methods = commands.map((command) => command.method)
    // Told to the transport (the application's own too, see setHttpClient): a dropped batch of reads may be resent.
    const readOnly = await commandsRead(methods, this.apiVersion)
    const response = await this.#transport().call(
      {
        method: 'batch',
        params: { halt: settings.haltOnError ? 1 : 0, cmd },
        ...(settings.requestId === undefined ? {} : { requestId: settings.requestId }),
        ...(settings.signal === undefined ? {} : { signal: settings.signal }),
      },
      { readOnly, methods },
    )
    if (!response.isSuccess) return requestFailedOutcome(this.apiVersion, commands, settings, response)
    const body = response.getData()?.result
    if (!isPlainObject(body)) {
      response.addError(
        new SdkError({
          code: SdkErrorCode.InvalidResponse,
          message: 'v2 batch: the answer has no result maps',
          status: response.getStatus(),
        }),
      )
      return requestFailedOutcome(this.apiVersion, commands, settings, response)
    }
    const results = readPhpMap(body.result)
    const errors = readPhpMap(body.result_error)
    const totals = readPhpMap(body.result_total)
    const nexts = readPhpMap(body.result_next)
    const times = readPhpMap(body.result_time)
    const status = response.getStatus()
    const outcomeErrors: SdkError[] = []
    const entries = commands.map((command) => {
      const { key } = command
      if (errors.has(key)) {
        const failure = commandErrors(errors.get(key))
        for (const error of failure) outcomeErrors.push(namedCommandError(command, error))
        return failedEntry(this.apiVersion, command, settings, status, failure)
      }
      if (results.has(key)) {
        const payload: AjaxPayload<unknown> = { result: results.get(key) }
        const total = totals.get(key)
        const next = nexts.get(key)
        const time = times.get(key)
        if (typeof total === 'number') payload.total = total
        if (typeof next === 'number') payload.next = next
        if (isPlainObject(time)) payload.time = time as unknown as PayloadTime
        return succeededEntry(this.apiVersion, command, settings, status, payload)
      }
      const reason = settings.haltOnError
        ? 'an earlier command failed and isHaltOnError is set'
        : 'the portal returned nothing for it'
      return failedEntry(this.apiVersion, command, settings, status, [notRunError(reason)])
    })
    return { entries, errors: outcomeErrors }
  }
}
