import { Agent, request as undiciRequest } from 'undici'
import type { FetchLike } from './http-options.js'

/** A fetch-compatible adapter with its own keep-alive pool, closable. */
export interface PooledFetch {
  /** The fetch-compatible function to give ky. */
  fetch: FetchLike
  /** Closes the pool's connections. */
  close(): Promise<void>
}

function headersToRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    out[name] = value
  })
  return out
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else if (value !== undefined) headers.set(name, value)
  }
  return headers
}

/**
 * A fetch-compatible function over `undici.request` and a keep-alive `Agent`: several times cheaper per call than
 * Node's global `fetch` (see docs/benchmarks.md). Failures are thrown as `TypeError('fetch failed', { cause })` like
 * `fetch`, so that ky and the retry policy treat both adapters alike.
 */
export function createPooledFetch(options: { connections: number; keepAliveTimeout: number }): PooledFetch {
  const agent = new Agent({
    connections: options.connections,
    keepAliveTimeout: options.keepAliveTimeout,
    keepAliveMaxTimeout: options.keepAliveTimeout,
  })
  const fetch: FetchLike = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const body = request.body ? await request.text() : undefined
    let answer: Awaited<ReturnType<typeof undiciRequest>>
    try {
      answer = await undiciRequest(request.url, {
        method: request.method as 'POST',
        headers: headersToRecord(request.headers),
        body,
        signal: request.signal,
        dispatcher: agent,
      })
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason
      throw new TypeError('fetch failed', { cause: error })
    }
    const text = await answer.body.text()
    const noBody = answer.statusCode === 204 || answer.statusCode === 304 || request.method === 'HEAD'
    return new Response(noBody ? null : text, {
      status: answer.statusCode,
      headers: responseHeaders(answer.headers),
    })
  }
  return { fetch, close: () => agent.close() }
}
