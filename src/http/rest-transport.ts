import type { Options as KyOptions } from 'ky'
import { loadedMethodTable, loadMethodTable, type MethodTable } from '../catalogue/method-table.js'
import { raceAbort } from '../core/abortable-sleep.js'
import { traceCallOutcome, traceCallStart, traceCallTarget } from '../diagnostics/channels.js'
import type { SdkError } from '../errors/sdk-error.js'
import type { AjaxQuery, AjaxResult } from '../results/ajax-result.js'
import type { ApiVersion } from '../types/api-version.js'
import type { CallOptions } from '../types/call.js'
import { waitForSlot } from './attempt-slot.js'
import type { AuthStrategy, RequestAuth } from './auth-strategy.js'
import { answerToResult, readAnswerBody } from './call-answer.js'
import {
  type Answer,
  type AttemptHook,
  type CallBody,
  type CallContext,
  type CallExtras,
  isThenable,
  NO_AUTH,
  type TypeHttp,
} from './call-context.js'
import { abortError, transportError } from './call-errors.js'
import { CallRetries } from './call-retries.js'
import { type KyClient, loadKyClient } from './ky-client.js'
import { isKyHttpError } from './ky-module.js'
import { readPortalError, TOKEN_REJECTION_CODES } from './payload.js'
import type { TransportContext } from './transport-context.js'
import { RAW_BODY_OPTION, type RawBody } from './undici-fetch.js'
import { validateCallOptions } from './validate-call.js'

export type { CallExtras, TypeHttp } from './call-context.js'

/**
 * Times a call is sent again after the portal rejected the token it carried, each time with a newer one: a pair taken
 * from a shared store may be expired too, and the portal may expire tokens again while a call waits for its slot.
 */
const MAX_TOKEN_RESENDS = 3

/**
 * One REST API version over ky: JSON POST to `{root}{method}` with the token as `auth` in the body, paced by the
 * instance's limiter (every attempt, retries included, takes a slot), retried by ky, and turned into an
 * {@link AjaxResult}. The token is written into the body when each attempt leaves, after its slot. On `expired_token`
 * it asks the auth side for a fresh token and sends the call again (at most {@link MAX_TOKEN_RESENDS} times).
 */
export class RestTransport implements TypeHttp {
  readonly apiVersion: ApiVersion
  readonly #instance: TransportContext
  readonly #auth: AuthStrategy
  readonly #retries: CallRetries
  /** Set once ky has loaded and the instance is made. */
  #client: KyClient | null = null
  /** The ky instance being made: ky and the adapter loaded on the first request (see ky-client.ts). */
  #making: Promise<KyClient> | null = null
  #clientSideWarning = true
  /** {@link #attempt} as each call carries it to the shared ky hooks (one function per transport, not per call). */
  readonly #attemptHook: AttemptHook = (context, request) => this.#attempt(context, request)

  constructor(apiVersion: ApiVersion, instance: TransportContext, auth: AuthStrategy) {
    this.apiVersion = apiVersion
    this.#instance = instance
    this.#auth = auth
    this.#retries = new CallRetries(apiVersion, instance)
  }

  offClientSideWarning(): void {
    this.#clientSideWarning = false
  }

  call<T = unknown>(input: CallOptions, extras: CallExtras = {}): Promise<AjaxResult<T>> {
    // Not an async function, whose promise would wait for the one returned (a promise and two jobs more per call);
    // whatever throws before the call leaves still rejects.
    try {
      return this.#start<T>(input, extras)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** Validates the call, then runs it under the method's operating limit (see {@link call}). */
  #start<T>(input: CallOptions, extras: CallExtras): Promise<AjaxResult<T>> {
    this.#instance.assertAlive()
    const options = validateCallOptions(input, this.apiVersion)
    this.#instance.warnClientSide(this.#clientSideWarning)
    const query: AjaxQuery = { apiVersion: this.apiVersion, method: options.method, params: options.params }
    if (options.requestId !== undefined) query.requestId = options.requestId
    // Stryker disable ObjectLiteral,StringLiteral: #write() sets the text and #send() the headers before any attempt leaves
    // `call` is set right below, once the context that holds the body exists.
    const body: CallBody = {
      text: '',
      headers: null,
      answer: undefined,
      call: null as unknown as CallContext,
    }
    // Stryker restore ObjectLiteral,StringLiteral
    const context: CallContext = {
      attempt: this.#attemptHook,
      options,
      query,
      attempts: 0,
      readOnly: extras.readOnly,
      commands: extras.methods,
      started: performance.now(),
      trace: traceCallStart(this.apiVersion, options.method, options.requestId, this.#auth.memberId),
      auth: NO_AUTH,
      body,
    }
    body.call = context
    const checked = this.#checkScope(options.method, extras.methods)
    const { trace } = context
    // Until #callAuthorised ends (a heavy method may wait its turn first): a fleet does not release the instance.
    this.#instance.callsInFlight += 1
    const run = () => this.#instance.restrictions.run(options.method, () => this.#callAuthorised<T>(context))
    const result = trace
      ? traceCallOutcome(run, trace, () => context.attempts, this.#instance.secrets)
      : run()
    // The call went out without waiting for the catalogue; its result waits for the check, so a warning comes first.
    return checked ? Promise.all([result, checked]).then(([answer]) => answer) : result
  }

  /**
   * Checks the call's methods against the pair's scope (see `ScopeWarnings`), at once when the catalogue is loaded;
   * otherwise it starts loading it and returns when the check is done. Nothing to check without a scope.
   */
  #checkScope(method: string, commands: readonly string[] | undefined): Promise<void> | undefined {
    const scope = this.#auth.scope
    if (!scope) return undefined
    const table = loadedMethodTable()
    if (table) {
      this.#checkScopeWith(table, method, commands, scope)
      return undefined
    }
    return loadMethodTable().then((loaded) => this.#checkScopeWith(loaded, method, commands, scope))
  }

  #checkScopeWith(
    table: MethodTable,
    method: string,
    commands: readonly string[] | undefined,
    scope: string,
  ): void {
    this.#instance.scopeWarnings.check(table, this.apiVersion, method, commands, scope, this.#instance.logger)
  }

  async #callAuthorised<T>(context: CallContext): Promise<AjaxResult<T>> {
    try {
      const { signal } = context.options
      const prepared = this.#prepare(context)
      context.auth = isThenable(prepared) ? await prepared : prepared
      let answer = await this.#send(context)
      for (let resend = 0; resend < MAX_TOKEN_RESENDS; resend += 1) {
        // Only a 401 can be a token rejection; other answers are read once, by answerToResult.
        const rejection = answer.status === 401 ? readPortalError(answer.body) : null
        if (!rejection || !TOKEN_REJECTION_CODES.has(rejection.code)) break
        // context.auth is the token the rejected attempt carried when it left.
        const waited = this.#auth.rejected(context.auth, rejection.code, signal, this.#waitMs(context))
        if (!(await this.#cancellable(context, waited))) break
        context.auth = await this.#prepare(context)
        answer = await this.#send(context)
      }
      return answerToResult<T>(this.#instance, this.apiVersion, context, answer)
    } finally {
      this.#instance.callsInFlight -= 1
    }
  }

  /** The authorisation of the next attempt; a promise only when the auth side has to wait (see `prepare`). */
  #prepare(context: CallContext): RequestAuth | Promise<RequestAuth> {
    const prepared = this.#auth.prepare(this.apiVersion, context.options.signal, this.#waitMs(context))
    return isThenable(prepared) ? this.#cancellable(context, Promise.resolve(prepared)) : prepared
  }

  /** A wait on the auth side that the caller's signal ended fails as the call's cancellation (`REQUEST_ABORTED`). */
  #cancellable<T>(context: CallContext, pending: Promise<T>): Promise<T> {
    const { signal } = context.options
    // Only the caller's signal turns a failure into a cancellation; without one, no extra promise per call.
    if (!signal) return pending
    return pending.catch((error: unknown) => {
      throw signal.aborted ? abortError(context, signal.reason ?? error) : error
    })
  }

  /**
   * How long the call may still wait for a token: its timeout is its deadline, so a wait for a refresh (and the first
   * look at a shared store before it) gets what is left of it since the call was made, also after a rejected token.
   */
  #waitMs(context: CallContext): number {
    const timeout = context.options.timeout ?? this.#instance.http.timeout
    return Math.max(0, timeout - (performance.now() - context.started))
  }

  /** Sends the call to `context.auth`'s root; the body, with its token, is written by {@link #attempt} as it leaves. */
  async #send(context: CallContext): Promise<Answer> {
    const { options } = context
    let client = this.#client
    if (!client) {
      try {
        client = await raceAbort(this.#makeClient(), options.signal)
      } catch (error) {
        throw this.#transportError(context, error)
      }
    }
    // Without the side channel, #attempt() returns a Request carrying the body, and the hooks find the call in ky's
    // `context`; with it, in the body (one option less for ky to merge). Built in one literal, not grown key by key:
    // every call hands ky options of the same hidden class.
    const retry = this.#retries.options(context)
    context.body.headers = client.headers
    const kyOptions: KyOptions & { [RAW_BODY_OPTION]?: RawBody } = client.rawBody
      ? { [RAW_BODY_OPTION]: context.body, retry }
      : { context: { call: context }, retry }
    // The instance's headers and timeout are ky defaults; each option given here costs ky a merge per call.
    if (options.timeout !== undefined) kyOptions.timeout = options.timeout
    // Stryker disable next-line ConditionalExpression: an undefined signal is no signal to ky
    if (options.signal) kyOptions.signal = options.signal
    if (context.trace) traceCallTarget(context.trace, context.auth.baseUrl)
    try {
      // A POST: the method is the instance's default (one source less for ky to merge than `ky.post`).
      const response = await client.ky(context.auth.baseUrl + options.method, kyOptions)
      const body = readAnswerBody(context, response)
      // Awaited only when the adapter left the text in the response: an await of a value costs a promise.
      return { status: response.status, body: isThenable(body) ? await body : body }
    } catch (error) {
      if (isKyHttpError(error)) {
        // A 503 or 429 that outlived its retries: the portal's error body becomes the result.
        return { status: error.response.status, body: await readAnswerBody(context, error.response) }
      }
      throw this.#transportError(context, error)
    }
  }

  #transportError(context: CallContext, error: unknown): SdkError {
    const { signal, timeout } = context.options
    return transportError(context, error, {
      signal,
      timeoutMs: timeout ?? this.#instance.http.timeout,
      secrets: this.#instance.secrets,
    })
  }

  /** The ky instance, made once ky (and the adapter, if it loads lazily) has loaded. */
  #makeClient(): Promise<KyClient> {
    this.#making ??= loadKyClient(this.#instance).then((client) => {
      this.#client = client
      return client
    })
    return this.#making
  }

  /**
   * One attempt leaving: its slot first (taken at once when one is free, without a turn of the event loop), then the
   * token current at that moment written into its body (a call that waited behind the bucket while the pair was
   * refreshed carries the new token).
   */
  #attempt(context: CallContext, request: Request): Request | undefined | Promise<Request | undefined> {
    this.#instance.assertAlive()
    if (!this.#instance.restrictions.tryAcquire(context.options.method, context.options.signal))
      return waitForSlot(this.#instance, context).then(() => this.#write(context, request))
    context.attempts += 1
    return this.#write(context, request)
  }

  /** Writes the current token into the attempt's body: beside the `Request` for an adapter that takes it there, in a new `Request` for any other. */
  #write(context: CallContext, request: Request): Request | undefined {
    const token = this.#auth.currentToken()
    if (token !== context.auth.token) {
      const { baseUrl } = context.auth
      context.auth = { baseUrl, token, generation: this.#auth.currentGeneration() }
    }
    const { params } = context.options
    // Stryker disable next-line ConditionalExpression: JSON.stringify drops an undefined auth, so the body is the same
    const text = JSON.stringify(token === undefined ? params : { ...params, auth: token })
    if (this.#client?.rawBody) {
      context.body.text = text
      return undefined
    }
    return new Request(request, { body: text })
  }
}
