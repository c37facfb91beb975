import { SdkError, SdkErrorCode } from '../../errors/sdk-error.js'
import type { TypeHttp } from '../../http/rest-transport.js'
import { commandsRead } from '../../http/retry-policy.js'
import { ApiVersion } from '../../types/api-version.js'
import type { BatchCommand } from './batch-commands.js'
import { failedEntry, notRunError, requestFailedOutcome, succeededEntry } from './batch-entries.js'
import type { BatchOutcome, BatchRunner, BatchSettings } from './batch-runner.js'

/**
 * v3 `batch` (contract 6.2). The documented body is a root JSON array of `{ method, query, as? }`, which
 * leaves no room for the OAuth token: it would have to go in a header or the URL. So the commands are sent as an
 * object with numeric keys, `{ "0": { method, query, as? }, "1": ..., auth }` — the form the vendor's own SDK sends
 * to live portals — and the token stays in the body like on every other call. The answer's `result` is an array in
 * command order. The batch is all-or-nothing: a failing command fails the request, and every command then carries
 * the request's error (commands before it may have had effects).
 */
export class V3BatchRunner implements BatchRunner {
  readonly apiVersion = ApiVersion.v3
  readonly #transport: () => TypeHttp

  constructor(transport: () => TypeHttp) {
    this.#transport = transport
  }

  async run(commands: readonly BatchCommand[], settings: BatchSettings): Promise<BatchOutcome> {
    const body = Object.fromEntries(
      commands.map((command, index) => [
        String(index),
        {
          method: command.method,
          query: command.params,
          ...(command.alias === undefined ? {} : { as: command.alias }),
        },
      ]),
    )
    const methods = commands.map((command) => command.method)
    // Told to the transport (the application's own too, see setHttpClient): a dropped batch of reads may be resent.
    const readOnly = await commandsRead(methods, this.apiVersion)
    const response = await this.#transport().call(
      {
        method: 'batch',
        params: body,
        ...(settings.requestId === undefined ? {} : { requestId: settings.requestId }),
        ...(settings.signal === undefined ? {} : { signal: settings.signal }),
      },
      { readOnly, methods },
    )
    if (!response.isSuccess) return requestFailedOutcome(this.apiVersion, commands, settings, response)
    const results = response.getData()?.result
    if (!Array.isArray(results)) {
      response.addError(
        new SdkError({
          code: SdkErrorCode.InvalidResponse,
          message: 'v3 batch: the answer has no result array',
          status: response.getStatus(),
        }),
      )
      return requestFailedOutcome(this.apiVersion, commands, settings, response)
    }
    const status = response.getStatus()
    const entries = commands.map((command, index) =>
      index < results.length
        ? succeededEntry(this.apiVersion, command, settings, status, { result: results[index] })
        : failedEntry(this.apiVersion, command, settings, status, [
            notRunError('the portal returned no result for it'),
          ]),
    )
    const errors =
      results.length < commands.length
        ? [
            new SdkError({
              code: SdkErrorCode.InvalidResponse,
              message: `v3 batch: the portal returned ${results.length} results for ${commands.length} commands`,
              status,
            }),
          ]
        : []
    return { entries, errors }
  }
}
