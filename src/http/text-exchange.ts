import type { Dispatcher } from 'undici'
import { AnswerTooLarge } from './answer-limit.js'
import { isRedirectStatus, locationOrigin, RedirectRefusal } from './no-redirect.js'

/** One request whose body is a string, and whose answer is wanted as a string. */
export interface TextRequest {
  url: string
  method: string
  headers: Readonly<Record<string, string>>
  body: string | undefined
  signal: AbortSignal
}

/**
 * undici's hook, on the options of a dispatch, by which a request still waiting for a connection is taken out of
 * the pool's queue when its signal aborts (`undici.request` installs it for every request with a signal). Without
 * it (an undici that no longer has it) such a request is aborted when its turn comes, before it is written.
 */
export type QueuedAbortKey = symbol | undefined

/** undici's error for an answer past the pool's `maxResponseSize`. */
export function passedMaxSize(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
}

/** The first value of a header as undici gives it. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The text of the chunks of an answer, UTF-8, a leading byte order mark skipped (as undici's `body.text()`). */
function decode(chunks: Buffer[], length: number): string {
  if (length === 0) return ''
  const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length)
  const start = length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0
  return buffer.toString('utf8', start, length)
}

/**
 * One exchange as an undici dispatch handler: the answer's chunks are gathered and decoded once at its end. Unlike
 * `undici.request`, no `Readable` stream, async resource or copy of the options is made per request (see "Sequential
 * CPU per call" in docs/benchmarks.md). It settles as `undici.request` and reading its body would: a failure
 * before the answer as `TypeError('fetch failed', { cause })`, one while the body is read as undici's error, an abort
 * as the signal's reason, a redirect as a {@link RedirectRefusal}, an answer past `maxResponseSize` as an
 * {@link AnswerTooLarge}.
 */
class TextExchange<T> implements Dispatcher.DispatchHandler {
  readonly #url: string
  readonly #signal: AbortSignal
  readonly #limit: number
  readonly #resolve: (answer: T) => void
  readonly #done: (status: number, text: string) => T
  readonly #reject: (error: unknown) => void
  #controller: Dispatcher.DispatchController | null = null
  #cancelQueued: ((reason: unknown) => void) | null = null
  #status = 0
  #answered = false
  #settled = false
  readonly #chunks: Buffer[] = []
  #length = 0
  readonly #onAbort = (): void => {
    const { reason } = this.#signal
    this.#fail(reason)
    if (this.#controller) this.#controller.abort(reason)
    else this.#cancelQueued?.(reason)
  }

  constructor(
    url: string,
    signal: AbortSignal,
    limit: number,
    done: (status: number, text: string) => T,
    resolve: (answer: T) => void,
    reject: (error: unknown) => void,
  ) {
    this.#done = done
    this.#url = url
    this.#signal = signal
    this.#limit = limit
    this.#resolve = resolve
    this.#reject = reject
    signal.addEventListener('abort', this.#onAbort)
  }

  /** Called by the pool while the request waits for a connection: how to take it out of the queue. */
  readonly queued = (cancel: (reason: unknown) => void): void => {
    if (this.#controller === null) this.#cancelQueued = cancel
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#cancelQueued = null
    if (this.#signal.aborted) {
      controller.abort(this.#signal.reason)
      return
    }
    this.#controller = controller
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // An informational answer comes before the real one.
    if (statusCode < 200) return
    this.#answered = true
    this.#status = statusCode
    if (isRedirectStatus(statusCode)) {
      // Its body is not read: the request is aborted and its connection closed.
      const refusal = new RedirectRefusal(
        statusCode,
        locationOrigin(headerValue(headers.location), this.#url),
        false,
      )
      this.#fail(refusal)
      controller.abort(refusal)
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#length += chunk.length
  }

  onResponseEnd(): void {
    if (this.#settle()) this.#resolve(this.#done(this.#status, decode(this.#chunks, this.#length)))
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#signal.aborted) this.#fail(this.#signal.reason)
    else if (passedMaxSize(error)) this.#fail(new AnswerTooLarge(this.#limit))
    else this.#fail(this.#answered ? error : new TypeError('fetch failed', { cause: error }))
  }

  /** Rejects, once. */
  #fail(error: unknown): void {
    if (this.#settle()) this.#reject(error)
  }

  /** Marks the exchange settled; `false` when it was already. */
  #settle(): boolean {
    if (this.#settled) return false
    this.#settled = true
    this.#signal.removeEventListener('abort', this.#onAbort)
    return true
  }
}

/**
 * The origin and the path (with the query) of a `Request`'s URL. The `Request` has parsed it already and gives it
 * back serialized (`scheme://host[:port]/path[?query][#fragment]`, no credentials: a `Request` refuses them), so it is
 * cut, not parsed a second time; the fragment is never sent.
 */
function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2)
  if (slash === -1) return { origin: url, path: '/' }
  const hash = url.indexOf('#', slash)
  return { origin: url.slice(0, slash), path: hash === -1 ? url.slice(slash) : url.slice(slash, hash) }
}

/**
 * Sends `request` through `dispatcher` and reads its answer as text, up to the pool's `maxResponseSize` (`limit`);
 * resolves with what `done` makes of its status and text.
 */
export function exchangeText<T>(
  dispatcher: Dispatcher,
  request: TextRequest,
  limit: number,
  queuedAbort: QueuedAbortKey,
  done: (status: number, text: string) => T,
): Promise<T> {
  const { signal } = request
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const { origin, path } = splitUrl(request.url)
    const exchange = new TextExchange(request.url, signal, limit, done, resolve, reject)
    const options: Dispatcher.DispatchOptions & Record<symbol, unknown> = {
      origin,
      path,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body ?? null,
    }
    if (queuedAbort) options[queuedAbort] = exchange.queued
    try {
      dispatcher.dispatch(options, exchange)
    } catch (error) {
      exchange.onResponseError(null as unknown as Dispatcher.DispatchController, error as Error)
    }
  })
}
