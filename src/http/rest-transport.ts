import type { Hooks as KyHooks, KyInstance, Options as KyOptions } from 'ky'
import { loadedMethodTable, loadMethodTable, type MethodTable } from '../catalogue/method-table.js'
import { raceAbort } from '../core/abortable-sleep.js'
import { type CallTrace, traceCallOutcome, traceCallStart, traceCallTarget } from '../diagnostics/channels.js'
import { SdkError } from '../errors/sdk-error.js'
import { type AjaxQuery, AjaxResult } from '../results/ajax-result.js'
import type { ApiVersion } from '../types/api-version.js'
import type { CallOptions } from '../types/call.js'
import { MAX_RETRY_DELAY_MS } from '../validation/rules.js'
import { USER_AGENT } from '../version.js'
import type { AuthStrategy, RequestAuth } from './auth-strategy.js'
import { abortError, callFields, invalidBodyError, slotTimeoutError, transportError } from './call-errors.js'
import type { FetchLike, NormalizedHttpOptions } from './http-options.js'
import { isKyHttpError, type KyModule, loadKy } from './ky-module.js'
import { portalErrorsToSdkErrors, readPayload, readPortalError, TOKEN_REJECTION_CODES } from './payload.js'
import { shareBodylessRequest } from './retry-clone.js'
import { classifyFailure, failureCode, isReadMethod, mayRetryFailure, retryJitter } from './retry-policy.js'
import { SlotDeadline } from './slot-deadline.js'
import type { TransportContext } from './transport-context.js'
import { adapterReady, answerText, RAW_BODY_OPTION, type RawBody, readsRawBody } from './undici-fetch.js'
import { validateCallOptions } from './validate-call.js'

/** What the library's own actions know about a call beyond its options; a transport may ignore it. */
export interface CallExtras {
  /** Every command of the call only reads (a batch of reads): a timeout or a dropped connection may be retried. */
  readOnly?: boolean
  /**
   * The methods the call runs besides its own (a batch's commands): each is checked against the pair's scope and,
   * unless `readOnly` is given, the call counts as a read when every one of them reads.
   */
  methods?: readonly string[]
}

/**
 * POST is retried; whether a failure is retried is decided by `shouldRetry` alone (it answers every case), so ky's
 * `statusCodes`, `afterStatusCodes` and `retryOnTimeout` are never read and are not given (each key costs ky a merge
 * per call).
 */
const RETRY_METHODS = ['post']

/**
 * Times a call is sent again after the portal rejected the token it carried, each time with a newer one: a pair taken
 * from a shared store may be expired too, and the portal may expire tokens again while a call waits for its slot.
 */
const MAX_TOKEN_RESENDS = 3

/** One REST transport (one per {@link ApiVersion}), as `getHttpClient()` returns it. */
export interface TypeHttp {
  /** The REST API version this transport speaks. */
  readonly apiVersion: ApiVersion
  /** Sends one REST call. REST-level errors resolve with `isSuccess: false`; transport failures reject with an `AjaxError`. */
  call<T = unknown>(options: CallOptions, extras?: CallExtras): Promise<AjaxResult<T>>
  /** Silences the client-side runtime warning for this transport. */
  offClientSideWarning(): void
}

/** Per-call state shared with ky's hooks through `context`. */
interface CallContext {
  /** The transport the call runs on: the ky instance's hooks, shared by many transports, act through it. */
  transport: RestTransport
  options: ReturnType<typeof validateCallOptions>
  query: AjaxQuery
  attempts: number
  /** Whether every command of the call only reads (batches pass it; plain calls derive it from the method). */
  readOnly: boolean | undefined
  /** The methods a batch runs, whose reads decide {@link readOnly} when it is not given. */
  commands: readonly string[] | undefined
  /** `performance.now()` when the call was made. */
  started: number
  /** Set while a diagnostics channel of calls has subscribers. */
  trace: CallTrace | null
  /** The authorisation of the attempt: where it goes, then the token it carried as it left. */
  auth: RequestAuth
  /** The body of the attempt, written when it leaves; read by an adapter that takes it beside the `Request`. */
  body: RawBody
}

interface Answer {
  status: number
  body: unknown
}

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
  /** Set once ky has loaded and the instance is made. */
  #ky: KyInstance | null = null
  /** Whether the adapter takes the body as a string beside the `Request` (see {@link RAW_BODY_OPTION}). */
  // Stryker disable next-line BooleanLiteral: #loadClient() sets it before the first send
  #rawBody = false
  /**
   * The instance's headers: beside the `Request` with the body for an adapter that takes it there (see
   * `RawBody.headers`), else given to ky.
   */
  #headers: Readonly<Record<string, string>> | null = null
  /** The ky instance being made: ky and the adapter loaded on the first request (see ky-module.ts, {@link adapterReady}). */
  #making: Promise<KyInstance> | null = null
  #clientSideWarning = true

  constructor(apiVersion: ApiVersion, instance: TransportContext, auth: AuthStrategy) {
    this.apiVersion = apiVersion
    this.#instance = instance
    this.#auth = auth
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
    const context: CallContext = {
      transport: this,
      options,
      query,
      attempts: 0,
      readOnly: extras.readOnly,
      commands: extras.methods,
      started: performance.now(),
      trace: traceCallStart(this.apiVersion, options.method, options.requestId, this.#auth.memberId),
      auth: NO_AUTH,
      // Stryker disable next-line ObjectLiteral,StringLiteral: #write() sets the text and #send() the headers before any attempt leaves
      body: { text: '', headers: null },
    }
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
        // Only a 401 can be a token rejection; other answers are read once, by #toResult.
        const rejection = answer.status === 401 ? readPortalError(answer.body) : null
        if (!rejection || !TOKEN_REJECTION_CODES.has(rejection.code)) break
        // context.auth is the token the rejected attempt carried when it left.
        const waited = this.#auth.rejected(context.auth, rejection.code, signal, this.#waitMs(context))
        if (!(await this.#cancellable(context, waited))) break
        context.auth = await this.#prepare(context)
        answer = await this.#send(context)
      }
      return this.#toResult<T>(context, answer)
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

  /** How long the call may wait for a token: its own timeout bounds the wait for a refresh too. */
  #waitMs(context: CallContext): number {
    return context.options.timeout ?? this.#instance.http.timeout
  }

  /** Sends the call to `context.auth`'s root; the body, with its token, is written by {@link #gate} as it leaves. */
  async #send(context: CallContext): Promise<Answer> {
    const { options } = context
    let client = this.#ky
    if (!client) {
      try {
        client = await raceAbort(this.#makeClient(), options.signal)
      } catch (error) {
        throw this.#transportError(context, error)
      }
    }
    // Without the side channel, #attempt() returns a Request carrying the body. Built in one literal, not grown key
    // by key: every call hands ky options of the same hidden class.
    const call = { call: context }
    const retry = this.#retryOptions(context)
    context.body.headers = this.#headers
    const kyOptions: KyOptions & { [RAW_BODY_OPTION]?: RawBody } = this.#rawBody
      ? { [RAW_BODY_OPTION]: context.body, context: call, retry }
      : { context: call, retry }
    // The instance's headers and timeout are ky defaults; each option given here costs ky a merge per call.
    if (options.timeout !== undefined) kyOptions.timeout = options.timeout
    // Stryker disable next-line ConditionalExpression: an undefined signal is no signal to ky
    if (options.signal) kyOptions.signal = options.signal
    if (context.trace) traceCallTarget(context.trace, context.auth.baseUrl)
    try {
      const response = await client.post(context.auth.baseUrl + options.method, kyOptions)
      const body = this.#readBody(context, response)
      // Awaited only when the adapter left the text in the response: an await of a value costs a promise.
      return { status: response.status, body: isThenable(body) ? await body : body }
    } catch (error) {
      if (isKyHttpError(error)) {
        // A 503 or 429 that outlived its retries: the portal's error body becomes the result.
        return { status: error.response.status, body: await this.#readBody(context, error.response) }
      }
      throw this.#transportError(context, error)
    }
  }

  #retryOptions(context: CallContext): KyOptions['retry'] {
    // Only what depends on the call or on settings changed at run time is made per call.
    return {
      limit: this.#instance.restrictions.settings.maxRetries,
      methods: RETRY_METHODS,
      delay: this.#retryDelay,
      jitter: retryJitter,
      backoffLimit: MAX_RETRY_DELAY_MS,
      shouldRetry: ({ error }) => this.#shouldRetry(context, error),
    }
  }

  /** `retryDelay` doubling per retry, never shorter; ky then adds the jitter and applies the 5-minute limit. */
  readonly #retryDelay = (attempt: number): number =>
    this.#instance.restrictions.settings.retryDelay * 2 ** (attempt - 1)

  async #shouldRetry(context: CallContext, error: Error): Promise<boolean> {
    if (isKyHttpError(error)) return this.#shouldRetryAnswer(context, error.response)
    if (error instanceof SdkError) return false
    const kind = classifyFailure(error, context.options.signal)
    // Reads are told by the catalogue: a failure that may need the answer waits for it to load (once per process).
    if (kind === 'maybe-sent' && loadedMethodTable() === null) await loadMethodTable()
    const readOnly = context.readOnly ?? this.#commandsRead(context.commands)
    const retry = mayRetryFailure({
      kind,
      apiVersion: this.apiVersion,
      method: context.options.method,
      headers: context.options.headers,
      callOverride: context.options.retryOnNetworkError,
      instanceDefault: this.#instance.restrictions.settings.retryOnNetworkError,
      // Stryker disable next-line ConditionalExpression: readOnly: undefined reads as no readOnly
      ...(readOnly === undefined ? {} : { readOnly }),
    })
    this.#instance.logger.debug(`${this.apiVersion} ${context.options.method}: attempt failed in transit`, {
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
    return commands?.every((method) => isReadMethod(method, this.apiVersion))
  }

  async #shouldRetryAnswer(context: CallContext, response: Response): Promise<boolean> {
    // A peek: the body is read again when the answer becomes the result.
    const peeked = answerText(response) ?? response.clone().text()
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
      this.#instance.logger.debug(`${this.apiVersion} ${method}: QUERY_LIMIT_EXCEEDED, retrying`, {
        ...callFields(context.query),
        status: 503,
        attempt: context.attempts,
      })
      return true
    }
    if (response.status === 429 && error?.code === 'OPERATION_TIME_LIMIT') {
      const wait = this.#instance.restrictions.operatingLimited(method)
      this.#instance.logger.debug(`${this.apiVersion} ${method}: OPERATION_TIME_LIMIT`, {
        ...callFields(context.query),
        status: 429,
        attempt: context.attempts,
        waitMs: wait,
      })
      return wait !== null
    }
    return false
  }

  /** The answer as JSON; synchronous when the adapter handed the text over (see {@link answerText}). */
  #readBody(context: CallContext, response: Response): unknown {
    const text = answerText(response)
    if (text !== undefined) return this.#parseBody(context, response.status, text)
    return response.text().then((read) => this.#parseBody(context, response.status, read))
  }

  #parseBody(context: CallContext, status: number, text: string): unknown {
    try {
      return text === '' ? null : JSON.parse(text)
    } catch (cause) {
      throw invalidBodyError(context, status, cause)
    }
  }

  #toResult<T>(context: CallContext, answer: Answer): AjaxResult<T> {
    const { method } = context.options
    const error = readPortalError(answer.body)
    const payload = readPayload<T>(answer.body)
    this.#instance.restrictions.record(method, payload.time)
    if (error === null && answer.status < 400) {
      return new AjaxResult<T>({
        payload,
        status: answer.status,
        query: context.query,
      })
    }
    const result = new AjaxResult<T>({ status: answer.status, query: context.query })
    const portalError = error ?? { code: `HTTP_${answer.status}`, description: '', validation: [] }
    for (const item of portalErrorsToSdkErrors(portalError, answer.status)) result.addError(item)
    this.#instance.logger.debug(`${this.apiVersion} ${method}: portal answered ${portalError.code}`, {
      ...callFields(context.query),
      status: answer.status,
      attempts: context.attempts,
      durationMs: performance.now() - context.started,
    })
    return result
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
  #makeClient(): Promise<KyInstance> {
    this.#making ??= this.#loadClient()
    return this.#making
  }

  async #loadClient(): Promise<KyInstance> {
    const fetch = this.#instance.fetch()
    const [ky] = await Promise.all([loadKy(), adapterReady(fetch)])
    this.#rawBody = readsRawBody(fetch)
    const shared = sharedKy(ky, fetch, this.#rawBody, this.#instance.http, RestTransport.#hooks)
    this.#headers = shared.headers
    this.#ky = shared.ky
    return shared.ky
  }

  /**
   * The hooks of every ky instance: an attempt leaves through the transport of its call (`context.transport`), so
   * that one ky instance serves every transport with the same adapter and settings (a fleet's thousands of portals).
   */
  static readonly #hooks: KyHooks = {
    // ky 2 runs beforeRequest once and beforeRetry before every repeat: each attempt takes its own slot.
    beforeRequest: [
      ({ request, options }) => {
        const context = callContextOf(options)
        const { headers, requestId } = context.options
        if (headers) for (const name of Object.keys(headers)) request.headers.set(name, headers[name]!)
        if (requestId !== undefined) request.headers.set('x-request-id', requestId)
        // CPU: no clone per attempt for a request whose body is beside it (see retry-clone.ts).
        // Stryker disable next-line CallExpression: ky then clones the request, which sends the same (CPU only)
        shareBodylessRequest(request)
        return context.transport.#attempt(context, request)
      },
    ],
    beforeRetry: [
      ({ request, options }) => {
        const context = callContextOf(options)
        return context.transport.#attempt(context, request)
      },
    ],
  }

  /**
   * One attempt leaving: its slot first (taken at once when one is free, without a turn of the event loop), then the
   * token current at that moment written into its body (a call that waited behind the bucket while the pair was
   * refreshed carries the new token).
   */
  #attempt(context: CallContext, request: Request): Request | undefined | Promise<Request | undefined> {
    this.#instance.assertAlive()
    if (!this.#instance.restrictions.tryAcquire(context.options.method, context.options.signal))
      return this.#gate(context).then(() => this.#write(context, request))
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
    if (this.#rawBody) {
      context.body.text = text
      return undefined
    }
    return new Request(request, { body: text })
  }

  /** An attempt that found no free slot waits for the method's operating delay and a slot of the bucket. */
  async #gate(context: CallContext): Promise<void> {
    const { trace } = context
    const waitFrom = trace ? performance.now() : 0
    const timeout = context.options.timeout ?? this.#instance.http.timeout
    const left = timeout - (performance.now() - context.started)
    // The call's timeout is its deadline, the wait for a slot included: a call that gets none in time is not sent.
    const deadline = new SlotDeadline(left, context.options.signal)
    try {
      // A shared bucket's round trip waits at most half of what the call has left (a moment at least): a store that
      // does not answer leaves the other half to the instance's own bucket, which paces the call meanwhile.
      const storeWait = Math.max(MIN_STORE_WAIT_MS, left / 2)
      await this.#instance.restrictions.acquire(context.options.method, deadline.signal, storeWait)
      if (trace) trace.limiterWaitMs += performance.now() - waitFrom
      // No request leaves after destroy(), also for a caller whose wait ended just as it happened.
      this.#instance.assertAlive()
    } catch (error) {
      // A cancellation by the caller's signal is told where every failure of an attempt is (#send, transportError).
      // The limiter drops its waiting callers when the instance is destroyed: say so clearly.
      this.#instance.assertAlive()
      if (deadline.expired) throw slotTimeoutError(context, timeout)
      throw error
    } finally {
      deadline.close()
    }
    context.attempts += 1
  }
}

/** The least a call waits for a shared bucket's answer, ms, also when its timeout is spent: a round trip's worth. */
const MIN_STORE_WAIT_MS = 100

/** The headers of every request of the instance, names in lower case: the client's, under `httpOptions.headers`. */
function instanceHeaders(extra: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  }
  for (const name of Object.keys(extra)) headers[name.toLowerCase()] = extra[name]!
  return headers
}

/** A ky instance and the headers its transports send, shared by every transport with the same adapter and settings. */
interface SharedKy {
  ky: KyInstance
  /** The instance's headers (see `RestTransport.#headers`). */
  headers: Readonly<Record<string, string>>
}

/** The ky instances made so far, by adapter, then by settings (`timeout`, headers, raw body). */
const kyInstances = new WeakMap<FetchLike, Map<string, SharedKy>>()

/**
 * The ky instance of an adapter and settings, made once: a client holds no ky instance of its own, so that a held
 * portal costs no more after its calls than before them.
 */
function sharedKy(
  { default: ky }: KyModule,
  fetch: FetchLike,
  rawBody: boolean,
  http: Pick<NormalizedHttpOptions, 'timeout' | 'headers'>,
  hooks: KyHooks,
): SharedKy {
  const headers = instanceHeaders(http.headers)
  const key = `${rawBody}\n${http.timeout}\n${JSON.stringify(headers)}`
  let byKey = kyInstances.get(fetch)
  if (!byKey) {
    byKey = new Map()
    kyInstances.set(fetch, byKey)
  }
  const found = byKey.get(key)
  if (found) return found
  const made: SharedKy = {
    headers,
    ky: ky.create({
      fetch,
      // Stryker disable next-line ConditionalExpression: an HTTPError of any status ends in #send's catch, which reads it as the answer
      throwHttpErrors: (status) => status === 429 || status === 503,
      timeout: http.timeout,
      ...(rawBody ? {} : { headers }),
      hooks,
    }),
  }
  byKey.set(key, made)
  return made
}

/** The authorisation of a call not prepared yet. */
const NO_AUTH: RequestAuth = { baseUrl: '', generation: 0 }

/** Whether `value` is a promise or another thenable (an `AuthStrategy` may return either, or the value itself). */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown }).then === 'function'
}

/** The call a ky hook runs for, passed through ky's `context` option. */
function callContextOf(options: { readonly context: unknown }): CallContext {
  return (options.context as { call: CallContext }).call
}
