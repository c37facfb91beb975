import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What a hostile server saw of one request: its path, and what became of the answer it streamed. */
export interface ServedRequest {
  /** HTTP method. */
  method: string
  /** The URL's path, without its query. */
  path: string
  /** Bytes of the answer body written so far. */
  bytesSent: number
  /** The answer was written whole. */
  finished: boolean
  /** The client closed the connection before the answer was written whole. */
  closedEarly: boolean
}

/** A loopback server of the tests below, trusted or not as the test says. */
export interface HostileServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string
  /** `origin` + `/rest/`: a `serverEndpoint` or `clientEndpoint` naming it. */
  restRoot: string
  /** Every request received so far. */
  served: ServedRequest[]
  /** Resolves once every request received so far has ended (answered whole, or closed by the client). */
  settled(): Promise<void>
  /** Stops listening and closes every connection. */
  close(): Promise<void>
}

function drain(request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    request.resume()
    request.on('end', resolve)
    request.on('close', resolve)
  })
}

/** Resolves when the response may be written to again, or when the connection is gone. */
function writable(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done)
      response.off('close', done)
      resolve()
    }
    response.on('drain', done)
    response.on('close', done)
  })
}

async function listen(
  answer: (request: IncomingMessage, response: ServerResponse, served: ServedRequest) => Promise<void>,
): Promise<HostileServer> {
  const served: ServedRequest[] = []
  const ended: Promise<void>[] = []
  const server: Server = createServer((request, response) => {
    const entry: ServedRequest = {
      method: request.method ?? '',
      path: new URL(request.url ?? '/', 'http://hostile').pathname,
      bytesSent: 0,
      finished: false,
      closedEarly: false,
    }
    served.push(entry)
    response.on('close', () => {
      if (!entry.finished) entry.closedEarly = true
    })
    ended.push(
      new Promise<void>((resolve) => response.on('close', resolve)).then(() => undefined),
      drain(request).then(() => answer(request, response, entry)),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    restRoot: `${origin}/rest/`,
    served,
    settled: async () => {
      await Promise.all(ended)
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * A server that answers every request with `status` and a `Location` on `target` (the same path, and a query that
 * must never appear in an error message): a trusted OAuth server or a portal sending the client elsewhere.
 */
export function startRedirector(status: number, target: string): Promise<HostileServer> {
  return listen(async (request, response, entry) => {
    const path = new URL(request.url ?? '/', 'http://hostile').pathname
    response
      .writeHead(status, {
        location: `${target}${path}?leak=query-of-the-location`,
        'content-type': 'text/plain',
      })
      .end('moved')
    entry.finished = true
  })
}

/** A chunk of the huge answer: 64 KiB of `a`. */
const CHUNK = Buffer.alloc(64 * 1024, 'a')

/**
 * A server whose every answer is HTTP 200 JSON of `bytes` bytes (`{"access_token":"aaaa…`), made on the fly chunk by
 * chunk as the client reads it (never held whole by the test), and cut when the client closes the connection.
 */
export function startHugeAnswer(bytes: number): Promise<HostileServer> {
  return listen(async (_request, response, entry) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    const head = '{"access_token":"'
    response.write(head)
    entry.bytesSent = head.length
    while (entry.bytesSent < bytes && !response.destroyed) {
      const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - entry.bytesSent))
      entry.bytesSent += chunk.length
      if (!response.write(chunk)) await writable(response)
    }
    if (response.destroyed) return
    entry.finished = true
    response.end('"}')
  })
}

/**
 * A server that sends HTTP 200 JSON headers at once and then its body one space every `everyMs` ms for `forMs` ms
 * (a JSON object at the end): an answer that never comes to an end within any deadline of the tests.
 */
export function startSlowBody(everyMs = 50, forMs = 120_000): Promise<HostileServer> {
  return listen(async (_request, response, entry) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.flushHeaders()
    const until = Date.now() + forMs
    while (Date.now() < until && !response.destroyed) {
      response.write(' ')
      entry.bytesSent += 1
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
    if (response.destroyed) return
    entry.finished = true
    response.end('{}')
  })
}
