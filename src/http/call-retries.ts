import type { Options as KyOptions } from 'ky'
import { loadedMethodTable, loadMethodTable } from '../catalogue/method-table.js'
import { SdkError } from '../errors/sdk-error.js'
import type { ApiVersion } from '../types/api-version.js'
import { MAX_RETRY_DELAY_MS } from '../validation/rules.js'
import { answerTextOf } from './call-answer.js'
import type { CallContext } from './call-context.js'
import { callFields } from './call-errors.js'
import { isKyHttpError } from './ky-module.js'
import { readPortalError } from './payload.js'
import { isRefusedAnswer } from './refused-answer.js'
import { classifyFailure, failureCode, isReadMethod, mayRetryFailure, retryJitter } from './retry-policy.js'
import type { TransportContext } from './transport-context.js'

/**
 * POST is retried; whether a failure is retried is decided by `shouldRetry` alone (it answers every case), so ky's
 * `statusCodes`, `afterStatusCodes` and `retryOnTimeout` are never read and are not given (each key costs ky a merge
 * per call).
 */
const RETRY_METHODS = ['post']

/**
 * The retries of one transport's calls, as ky's `retry` option: whether a failed attempt is sent again (the rate
 * limits' answers, a failure in transit by `retry-policy.ts`) and how long it waits first.
 */
export class CallRetries {
  readonly #apiVersion: ApiVersion
  readonly #instance: TransportContext

  constructor(apiVersion: ApiVersion, instance: TransportContext) {
    this.#apiVersion = apiVersion
    this.#instance = instance
  }

  /** ky's `retry` option of one call. */
  options(context: CallContext): KyOptions['retry'] {
    // Only what depends on the call or on settings changed at run time is made per call.
    return {
      limit: this.#instance.restrictions.settings.maxRetries,
      methods: RETRY_METHODS,
      delay: this.#retryDelay,
      shouldRetry: ({ error }) => this.#shouldRetry(context, error),
    }
  }

  /**
   * `retryDelay` doubling per retry, never shorter, with its jitter and at most 5 minutes: ky's `delay`, `jitter` and
   * `backoffLimit` in one function (two keys less for ky to copy and filter twice per call).
   */
  readonly #retryDelay = (attempt: number): number =>
    Math.min(
      MAX_RETRY_DELAY_MS,
      retryJitter(this.#instance.restrictions.settings.retryDelay * 2 ** (attempt - 1)),
    )

  async #shouldRetry(context: CallContext, error: Error): Promise<boolean> {
    if (isKyHttpError(error)) return this.#shouldRetryAnswer(context, error.response)
    // A redirect or an answer past the size limit would come again: the call fails at once.
    if (error instanceof SdkError || isRefusedAnswer(error)) return false
    const kind = classifyFailure(error, context.options.signal)
    // Reads are told by the catalogue: a failure that may need the answer waits for it to load (once per process).
    if (kind === 'maybe-sent' && loadedMethodTable() === null) await loadMethodTable()
    const readOnly = context.readOnly ?? this.#commandsRead(context.commands)
    const retry = mayRetryFailure({
      kind,
      apiVersion: this.#apiVersion,
      method: context.options.method,
      headers: context.options.headers,
      callOverride: context.options.retryOnNetworkError,
      instanceDefault: this.#instance.restrictions.settings.retryOnNetworkError,
      // Stryker disable next-line ConditionalExpression: readOnly: undefined reads as no readOnly
      ...(readOnly === undefined ? {} : { readOnly }),
    })
    this.#instance.logger.debug(`${this.#apiVersion} ${context.options.method}: attempt failed in transit`, {
      ...callFields(context.query),
      attempt: context.attempts,
      kind,
      // From the failure's snapshot, which the call's error is made of later: the failure is read once.
      code: failureCode(this.#instance.secrets.snapshot(error).data()),
      retry,
    })
    return retry
  }

  /** Whether every command of a batch reads; `undefined` for a call that is no batch. */
  #commandsRead(commands: readonly string[] | undefined): boolean | undefined {
    return commands?.every((method) => isReadMethod(method, this.#apiVersion))
  }

  async #shouldRetryAnswer(context: CallContext, response: Response): Promise<boolean> {
    // A peek: the body is read again when the answer becomes the result.
    const peeked = answerTextOf(context, response) ?? response.clone().text()
    const text = await Promise.resolve(peeked).catch(() => '')
    let body: unknown = null
    try {
      body = JSON.parse(text)
    } catch {
      // Not JSON: no portal error to act on.
    }
    const error = readPortalError(body)
    const { method } = context.options
    if (response.status === 503 && error?.code === 'QUERY_LIMIT_EXCEEDED') {
      this.#instance.restrictions.rateLimited()
      this.#instance.logger.debug(`${this.#apiVersion} ${method}: QUERY_LIMIT_EXCEEDED, retrying`, {
        ...callFields(context.query),
        status: 503,
        attempt: context.attempts,
      })
      return true
    }
    if (response.status === 429 && error?.code === 'OPERATION_TIME_LIMIT') {
      const wait = this.#instance.restrictions.operatingLimited(method)
      this.#instance.logger.debug(`${this.#apiVersion} ${method}: OPERATION_TIME_LIMIT`, {
        ...callFields(context.query),
        status: 429,
        attempt: context.attempts,
        waitMs: wait,
      })
      return wait !== null
    }
    return false
  }
}
