import type { Hooks as KyHooks, KyInstance } from 'ky'
import { USER_AGENT } from '../version.js'
import { readAnswerText } from './answer-limit.js'
import { callContextOf } from './call-context.js'
import type { FetchLike } from './http-options.js'
import { type KyModule, loadKy } from './ky-module.js'
import { NO_REDIRECT, refuseRedirect } from './no-redirect.js'
import { shareBodylessRequest } from './retry-clone.js'
import type { TransportContext } from './transport-context.js'
import { adapterReady, RAW_BODY_OPTION, readsRawBody, textResponse } from './undici-fetch.js'

/** A transport's ky instance and how its requests carry their body and headers. */
export interface KyClient {
  ky: KyInstance
  /** Whether the adapter takes the body as a string beside the `Request` (see {@link RAW_BODY_OPTION}). */
  rawBody: boolean
  /**
   * The instance's headers: beside the `Request` with the body for an adapter that takes it there (see
   * `RawBody.headers`), else given to ky.
   */
  headers: Readonly<Record<string, string>>
}

/** The headers of every request of the instance, names in lower case: the client's, under `httpOptions.headers`. */
function instanceHeaders(extra: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  }
  for (const name of Object.keys(extra)) headers[name.toLowerCase()] = extra[name]!
  // Shared by every call of the instance, and handed to undici as they are (see `RawBody.headers`): nothing may
  // change them.
  return Object.freeze(headers)
}

/**
 * The hooks of every ky instance: an attempt leaves through its call's transport (`CallContext.attempt`).
 * ky 2 runs beforeRequest once and beforeRetry before every repeat: each attempt takes its own slot.
 */
const HOOKS: KyHooks = {
  beforeRequest: [
    ({ request, options }) => {
      const context = callContextOf(options)
      const { headers: callHeaders, requestId } = context.options
      if (callHeaders)
        for (const name of Object.keys(callHeaders)) request.headers.set(name, callHeaders[name]!)
      if (requestId !== undefined) request.headers.set('x-request-id', requestId)
      // CPU: no clone per attempt for a request whose body is beside it (see retry-clone.ts).
      // Stryker disable next-line CallExpression: ky then clones the request, which sends the same (CPU only)
      shareBodylessRequest(request)
      return context.attempt(context, request)
    },
  ],
  beforeRetry: [
    ({ request, options }) => {
      const context = callContextOf(options)
      return context.attempt(context, request)
    },
  ],
}

/**
 * A user's adapter as REST calls go through it: a redirect it answers (or followed) is refused, and the answer's body
 * is read here, up to `limit` bytes, before ky sees the answer: ky's per-attempt `timeout` then covers the body, as
 * it does for the default adapter, and the text is handed over beside a status-only `Response` (see `answerText`).
 */
function boundedAdapter(fetch: FetchLike, limit: number): FetchLike {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    const signal = input instanceof Request ? input.signal : (init?.signal ?? undefined)
    const response = await fetch(input, init)
    refuseRedirect(response, url)
    return textResponse(response.status, await readAnswerText(response, limit, signal))
  }
}

/** The clients made so far, by adapter, then by settings (raw body, timeout, answer limit, headers). */
const clients = new WeakMap<FetchLike, Map<string, KyClient>>()

/**
 * The ky client of an adapter and settings, made once: a transport holds no ky instance of its own, so that a held
 * portal costs no more after its calls than before them.
 */
function sharedClient(
  { default: ky }: KyModule,
  fetch: FetchLike,
  rawBody: boolean,
  instance: TransportContext,
): KyClient {
  const headers = instanceHeaders(instance.http.headers)
  const { timeout, maxAnswerBytes } = instance.http
  const key = `${rawBody}\n${timeout}\n${maxAnswerBytes}\n${JSON.stringify(headers)}`
  let byKey = clients.get(fetch)
  if (!byKey) {
    byKey = new Map()
    clients.set(fetch, byKey)
  }
  const found = byKey.get(key)
  if (found) return found
  const client: KyClient = {
    ky: ky.create({
      // The default adapter reads the answer itself, within its pool's size limit; any other is bounded here.
      fetch: rawBody ? fetch : boundedAdapter(fetch, maxAnswerBytes),
      method: 'post',
      // Every REST call carries the access token: no redirect is followed (no-redirect.ts). The default adapter
      // follows none whatever the `Request` says, so it is spared the option.
      ...(rawBody ? {} : { redirect: NO_REDIRECT }),
      // Stryker disable next-line ConditionalExpression: an HTTPError of any status ends in #send's catch, which reads it as the answer
      throwHttpErrors: (status) => status === 429 || status === 503,
      timeout,
      ...(rawBody ? {} : { headers }),
      hooks: HOOKS,
    }),
    rawBody,
    headers,
  }
  byKey.set(key, client)
  return client
}

/**
 * A transport's ky client once ky (and the adapter, if it loads lazily) has loaded: the instance's adapter, timeout
 * and headers, ky's errors for 429 and 503 only, and each call's `attempt` run as every attempt leaves. No redirect
 * is followed and no answer is read past `httpOptions.maxAnswerBytes`, whatever the adapter.
 */
export async function loadKyClient(instance: TransportContext): Promise<KyClient> {
  const fetch = instance.fetch()
  const [ky] = await Promise.all([loadKy(), adapterReady(fetch)])
  return sharedClient(ky, fetch, readsRawBody(fetch), instance)
}
