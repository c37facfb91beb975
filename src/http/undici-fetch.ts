import type { Dispatcher } from 'undici'
import { AnswerTooLarge } from './answer-limit.js'
import type { FetchLike, ProxySetting } from './http-options.js'
import { isRedirectStatus, locationOrigin, RedirectRefusal } from './no-redirect.js'
import { exchangeText, headerValue, passedMaxSize, type QueuedAbortKey } from './text-exchange.js'

/** A fetch-compatible adapter with its own keep-alive pool, closable. */
export interface PooledFetch {
  /** The fetch-compatible function to give ky. */
  fetch: FetchLike
  /** Closes the pool's connections. */
  close(): Promise<void>
}

/**
 * Name of a `fetch` init member that carries the request body as a string. ky hands options it does not know to
 * `fetch` as its second argument; a body sent this way stays out of ky's `Request`, which then has no stream for
 * ky to tee on every attempt and for the adapter to read back. With the answer text handed back in it
 * ({@link RawBody.answer}), these two side channels save 43 to 55 % of the CPU per call under ky
 * (`npm run bench`, "side channels" rows), against the 15 % that would justify them.
 */
export const RAW_BODY_OPTION = 'portalRawBody'

/**
 * A {@link RAW_BODY_OPTION} value: the transport fills the body before each attempt leaves, and the adapter the
 * answer's text once it is read.
 */
export interface RawBody {
  /** The body to send now. */
  text: string
  /**
   * Headers sent under the `Request`'s own (which win), names in lower case: the instance's headers, the same for
   * every call. Given here, not to ky, they are not copied into fresh `Headers` objects three times per call (ky's
   * merge, its `Request`, the adapter's record; see docs/benchmarks.md).
   */
  headers: Readonly<Record<string, string>> | null
  /**
   * The text of the answer to the attempt, set by the adapter before it resolves (`undefined` while the attempt is
   * on its way, and after one that failed); the `Response` it resolves with carries the status alone.
   */
  answer: string | undefined
}

type Undici = typeof import('undici')

let undici: Undici | undefined
let undiciLoading: Promise<Undici> | undefined
/**
 * Whether `undici` is the npm package, whose pools take dispatch handlers ({@link exchangeText}). Bun answers
 * `import('undici')` with a module of its own whose pools send nothing through them: there REST answers are read
 * through `undici.request`, as every other request is.
 */
const DISPATCH_HANDLERS = typeof (process.versions as Record<string, string | undefined>).bun !== 'string'

/** undici's key for a queued request's abort (see {@link QueuedAbortKey}), once undici has loaded. */
let queuedAbort: QueuedAbortKey

/** Where undici keeps its symbols; not in its typed API, so named through a variable. */
const UNDICI_SYMBOLS = 'undici/lib/core/symbols.js'

/** undici's `kQueuedAbort`, or `undefined` when this undici has none. */
async function loadQueuedAbortKey(): Promise<QueuedAbortKey> {
  try {
    const symbols = (await import(UNDICI_SYMBOLS)) as { default?: { kQueuedAbort?: unknown } }
    const key = symbols.default?.kQueuedAbort
    return typeof key === 'symbol' ? key : undefined
  } catch {
    return undefined
  }
}

/** undici, imported when the first pool is created: importing it costs about 100 ms, paid at start-up otherwise. */
function loadUndici(): Promise<Undici> {
  undiciLoading ??= Promise.all([import('undici'), loadQueuedAbortKey()]).then(([module, key]) => {
    queuedAbort = key
    undici = module
    return module
  })
  return undiciLoading
}

/** Adapters that read {@link RAW_BODY_OPTION}; any other adapter gets the body in the `Request`. */
const rawBodyAdapters = new WeakSet<FetchLike>()

/**
 * Answer bodies read before ky sees the answer, by an adapter other than this one (ky-client.ts bounds them): their
 * `Response` carries the status alone, and the transport reads the text here (a stream per answer, filled and read
 * back at once, cost more than the rest of the adapter). Neither the transport nor ky, whose `shouldRetry` answers
 * every case, reads an answer's headers, and filling a `Response` with them cost 2 to 4 us per call, nine tenths of
 * the `Response`. This adapter hands its answers over in the {@link RawBody} instead.
 */
const answerTexts = new WeakMap<Response, string>()

/**
 * One status-only `Response` per status, shared by every answer whose text went into its {@link RawBody}: ky reads
 * nothing of it but its status (an empty body, read again, is empty again), so no `Response` and `Headers` are made
 * per call.
 */
const statusResponses = new Map<number, Response>()

/** The shared status-only `Response` of `status` (see {@link statusResponses}). */
function statusResponse(status: number): Response {
  let response = statusResponses.get(status)
  if (!response) {
    response = new Response(null, { status })
    statusResponses.set(status, response)
  }
  return response
}

/** A status-only `Response` whose body is `text`, handed over beside it (see {@link answerText}). */
export function textResponse(status: number, text: string): Response {
  const response = new Response(null, { status })
  answerTexts.set(response, text)
  return response
}

/** The answer text handed over beside a {@link textResponse}, `undefined` for any other response. */
export function answerText(response: Response): string | undefined {
  return answerTexts.get(response)
}

/** Whether `fetch` reads the body from {@link RAW_BODY_OPTION}. */
export function readsRawBody(fetch: FetchLike): boolean {
  return rawBodyAdapters.has(fetch)
}

/**
 * Resolves when `fetch` can send at once: a pooled adapter waits for undici to load, any other adapter is ready.
 * A caller that takes a slot of the leaky bucket awaits this first, so that the slot is not spent on a request
 * that would then wait 100 ms to leave (the portal counts requests when they arrive).
 */
export function adapterReady(fetch: FetchLike): Promise<void> | null {
  if (!rawBodyAdapters.has(fetch) || undici) return null
  return loadUndici().then(() => undefined)
}

/**
 * The request's headers as undici takes them, over `base` (see {@link RawBody.headers}): `base` itself when the
 * request has none of its own (a REST call without headers of its own), which undici only reads.
 */
function headersToRecord(
  headers: Headers,
  base: Readonly<Record<string, string>> | null,
): Readonly<Record<string, string>> {
  let out: Record<string, string> | null = null
  headers.forEach((value, name) => {
    out ??= { ...base }
    out[name] = value
  })
  return out ?? base ?? {}
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): [string, string][] {
  const headers: [string, string][] = []
  for (const name in raw) {
    const value = raw[name]
    if (Array.isArray(value)) for (const item of value) headers.push([name, item])
    else if (value !== undefined) headers.push([name, value])
  }
  return headers
}

/** What the default adapter's pool is built from (the instance's normalized `httpOptions`). */
export interface PoolOptions {
  /** Connections per origin. */
  connections: number
  /** How long an idle connection stays open, ms. */
  keepAliveTimeout: number
  /** Where requests leave through; straight by default. */
  proxy?: ProxySetting
  /**
   * Largest answer body read, bytes: undici's `maxResponseSize` of the pool, which closes the connection once an
   * answer passes it; the request then fails with {@link AnswerTooLarge}.
   */
  maxAnswerBytes: number
}

/** The connections of one adapter: the dispatcher each request leaves through, and what closes them all. */
interface Pool {
  /** The dispatcher for a request to `url`. */
  dispatcherFor(url: string): Dispatcher
  close(): Promise<void>
}

/**
 * The proxy URLs the environment names, read as Node reads them for `NODE_USE_ENV_PROXY=1` (the lower-case name wins
 * over the upper-case one); empty means none.
 */
function environmentProxies(): { http: string; https: string } {
  const env = globalThis.process?.env ?? {}
  return { http: env.http_proxy ?? env.HTTP_PROXY ?? '', https: env.https_proxy ?? env.HTTPS_PROXY ?? '' }
}

/**
 * The pool: straight connections, through one proxy URL, or through the proxies the environment names. From the
 * environment, Node's rule holds (its `http`/`https` modules and its documentation of `NODE_USE_ENV_PROXY`):
 * `HTTP_PROXY` serves `http://` endpoints and `HTTPS_PROXY` `https://` ones, `NO_PROXY` sends hosts straight.
 * undici's `EnvHttpProxyAgent` alone would also tunnel `https://` through `HTTP_PROXY` when `HTTPS_PROXY` is unset;
 * those requests go straight instead.
 */
function createPool(loaded: Undici, options: PoolOptions): Pool {
  const pool = {
    connections: options.connections,
    keepAliveTimeout: options.keepAliveTimeout,
    keepAliveMaxTimeout: options.keepAliveTimeout,
    maxResponseSize: options.maxAnswerBytes,
  }
  const proxy = options.proxy ?? { kind: 'none' }
  const single = (dispatcher: Dispatcher): Pool => ({
    dispatcherFor: () => dispatcher,
    close: () => closeDispatcher(dispatcher),
  })
  if (proxy.kind === 'url') return single(new loaded.ProxyAgent({ ...pool, uri: proxy.url }))
  if (proxy.kind === 'none') return single(new loaded.Agent(pool))
  const named = environmentProxies()
  if (named.http === '' || named.https !== '') return single(new loaded.EnvHttpProxyAgent(pool))
  const environment = new loaded.EnvHttpProxyAgent(pool)
  const straight = new loaded.Agent(pool)
  return {
    dispatcherFor: (url) => (url.startsWith('https:') ? straight : environment),
    close: async () => {
      await Promise.all([closeDispatcher(environment), closeDispatcher(straight)])
    },
  }
}

/** Closes a pool; a runtime whose `undici` is a partial stand-in (Bun's) may give agents without `close()`. */
async function closeDispatcher(agent: Dispatcher): Promise<void> {
  if (typeof agent.close === 'function') await agent.close()
}

/** An undici answer body: a Node stream of chunks. */
type UndiciBody = AsyncIterable<Uint8Array> & {
  destroy(error?: Error): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
}

/** Ends a body unread: its request is aborted and its connection closed, and the abort it reports is let go. */
function discardBody(body: UndiciBody): void {
  body.on('error', () => {})
  body.destroy()
}

/**
 * An undici answer body as the stream of a `Response`, pulled as its reader reads (nothing is read ahead of it but
 * one chunk); cancelling it destroys the body, which ends the request and closes its connection. A body past the
 * pool's `maxResponseSize` errors with {@link AnswerTooLarge}.
 */
function bodyStream(body: UndiciBody, limit: number): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<Uint8Array>
      try {
        next = await chunks.next()
      } catch (error) {
        throw passedMaxSize(error) ? new AnswerTooLarge(limit) : error
      }
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    cancel() {
      discardBody(body)
    },
  })
}

/**
 * A fetch-compatible function over `undici.request` and a keep-alive `Agent`: several times cheaper per call than
 * Node's global `fetch` (see docs/benchmarks.md). Failures are thrown as `TypeError('fetch failed', { cause })` like
 * `fetch`, so that ky and the retry policy treat both adapters alike. undici and the pool are created on the first
 * request. It follows no redirect: a 3xx answer throws a {@link RedirectRefusal} naming the location's origin. An
 * answer body past `maxAnswerBytes` throws an {@link AnswerTooLarge}; a request whose body is beside it
 * ({@link RAW_BODY_OPTION}, REST calls) has its answer read here, any other gets it as a stream (the caller bounds
 * it, see refused-answer.ts).
 */
export function createPooledFetch(options: PoolOptions): PooledFetch {
  let agent: Pool | undefined
  let closed = false
  void loadUndici()
  /**
   * A REST call (its body in `holder`) through a pool that exists: its answer read as text, without a stream (see
   * text-exchange.ts), into the holder.
   */
  const sendRest = (request: Request, holder: RawBody, pool: Pool): Promise<Response> => {
    holder.answer = undefined
    const { url } = request
    return exchangeText(
      pool.dispatcherFor(url),
      {
        url,
        method: request.method,
        headers: headersToRecord(request.headers, holder.headers),
        body: holder.text,
        signal: request.signal,
      },
      options.maxAnswerBytes,
      queuedAbort,
      (status, text) => {
        holder.answer = text
        return statusResponse(status)
      },
    )
  }
  /** Any request: the first REST calls while undici loads, and every request whose answer is wanted as a stream. */
  const fetchAny = async (
    input: Parameters<FetchLike>[0],
    init: Parameters<FetchLike>[1],
  ): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init)
    // The holder is read as the request leaves: the transport writes each attempt's body (its token) into it.
    const holder = (init as Record<string, unknown> | undefined)?.[RAW_BODY_OPTION] as RawBody | undefined
    const raw = holder?.text
    const body = typeof raw === 'string' ? raw : request.body ? await request.text() : undefined
    const loaded = undici ?? (await loadUndici())
    if (!agent) {
      agent = createPool(loaded, options)
      if (closed) await agent.close()
    }
    const rest = holder && typeof raw === 'string' ? holder : null
    if (rest && DISPATCH_HANDLERS) return sendRest(request, rest, agent)
    const { url, signal } = request
    const headers = headersToRecord(request.headers, holder?.headers ?? null)
    let answer: Awaited<ReturnType<Undici['request']>>
    try {
      answer = await loaded.request(url, {
        method: request.method as 'POST',
        headers,
        body,
        signal,
        dispatcher: agent.dispatcherFor(url),
      })
    } catch (error) {
      if (signal.aborted) throw signal.reason
      if (passedMaxSize(error)) throw new AnswerTooLarge(options.maxAnswerBytes)
      throw new TypeError('fetch failed', { cause: error })
    }
    const status = answer.statusCode
    if (isRedirectStatus(status)) {
      discardBody(answer.body)
      throw new RedirectRefusal(status, locationOrigin(headerValue(answer.headers.location), url), false)
    }
    if (rest) {
      rest.answer = undefined
      try {
        rest.answer = await answer.body.text()
      } catch (error) {
        if (passedMaxSize(error) && !signal.aborted) throw new AnswerTooLarge(options.maxAnswerBytes)
        throw error
      }
      return statusResponse(status)
    }
    const responseHeaderList = responseHeaders(answer.headers)
    if (status === 204 || status === 304 || request.method === 'HEAD') {
      await answer.body.dump()
      return new Response(null, { status, headers: responseHeaderList })
    }
    return new Response(bodyStream(answer.body, options.maxAnswerBytes), {
      status,
      headers: responseHeaderList,
    })
  }
  const fetch: FetchLike = (input, init) => {
    const holder = (init as Record<string, unknown> | undefined)?.[RAW_BODY_OPTION] as RawBody | undefined
    // Every REST call once the pool is up: no async frame of its own (a promise and a turn less per call).
    if (DISPATCH_HANDLERS && agent && input instanceof Request && typeof holder?.text === 'string') {
      try {
        return sendRest(input, holder, agent)
      } catch (error) {
        return Promise.reject(error)
      }
    }
    return fetchAny(input, init)
  }
  rawBodyAdapters.add(fetch)
  return {
    fetch,
    close: async () => {
      closed = true
      if (agent) await agent.close()
    },
  }
}
