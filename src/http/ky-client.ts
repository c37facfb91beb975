import type { KyInstance } from 'ky'
import { USER_AGENT } from '../version.js'
import { type CallContext, callContextOf } from './call-context.js'
import { loadKy } from './ky-module.js'
import { shareBodylessRequest } from './retry-clone.js'
import type { TransportContext } from './transport-context.js'
import { adapterReady, RAW_BODY_OPTION, readsRawBody } from './undici-fetch.js'

/** What an attempt does as it leaves (take a slot, write the token): the `Request` to send, or none to keep it. */
export type AttemptHook = (
  context: CallContext,
  request: Request,
) => Request | undefined | Promise<Request | undefined>

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
function instanceHeaders(extra: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': USER_AGENT,
  }
  for (const name of Object.keys(extra)) headers[name.toLowerCase()] = extra[name]!
  return headers
}

/**
 * Makes a transport's ky instance once ky (and the adapter, if it loads lazily) has loaded: the instance's adapter,
 * timeout and headers, ky's errors for 429 and 503 only, and `attempt` run as every attempt leaves.
 */
export async function loadKyClient(instance: TransportContext, attempt: AttemptHook): Promise<KyClient> {
  const fetch = instance.fetch()
  const [{ default: ky }] = await Promise.all([loadKy(), adapterReady(fetch)])
  const rawBody = readsRawBody(fetch)
  const headers = instanceHeaders(instance.http.headers)
  const client = ky.create({
    fetch,
    // Stryker disable next-line ConditionalExpression: an HTTPError of any status ends in #send's catch, which reads it as the answer
    throwHttpErrors: (status) => status === 429 || status === 503,
    timeout: instance.http.timeout,
    ...(rawBody ? {} : { headers }),
    hooks: {
      // ky 2 runs beforeRequest once and beforeRetry before every repeat: each attempt takes its own slot.
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
          return attempt(context, request)
        },
      ],
      beforeRetry: [({ request, options }) => attempt(callContextOf(options), request)],
    },
  })
  return { ky: client, rawBody, headers }
}
