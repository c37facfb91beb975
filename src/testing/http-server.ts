import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { parsePhpQuery } from './php-query.js'
import type { EmulatorState } from './state.js'
import { Stopwatch } from './time.js'
import type { EmulatorApiVersion, EmulatorRequestKind, EmulatorServerName, RequestLogEntry } from './types.js'

/** The request body, parsed by content type. */
export type ParsedBody =
  | { kind: 'empty'; value: undefined }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid-json'; value: string }
  | { kind: 'form'; value: Record<string, unknown> }
  | { kind: 'other'; value: string }

/** A request after its body was read, as the route handlers see it. */
export interface IncomingCall {
  httpMethod: string
  url: URL
  /** Lower-cased names. */
  headers: Record<string, string>
  contentType: string
  rawBody: string
  body: ParsedBody
  /** The log entry to complete (auth fields, token, grant type). */
  entry: RequestLogEntry
  /** Started when processing starts (after the artificial delays). */
  watch: Stopwatch
}

/** What a handler answers. */
export interface Reply {
  status: number
  /** Serialised as JSON unless it is a string. */
  body: unknown
  headers?: Record<string, string>
  /** Error code to record in the log. */
  errorCode?: string
}

/** What the router knows about a request from its method and URL alone. */
export interface RouteInfo {
  kind: EmulatorRequestKind
  apiVersion?: EmulatorApiVersion
  restMethod?: string
  handle(call: IncomingCall): Promise<Reply>
}

/** Classifies a request from its URL; called before the body is read. */
export type Router = (url: URL, httpMethod: string) => RouteInfo

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

function flatQuery(url: URL): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of url.searchParams) out[key] = value
  return out
}

/** True for `application/json` and `application/*+json`. */
export function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/** True for `application/x-www-form-urlencoded`. */
export function isFormType(contentType: string): boolean {
  return contentType.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded'
}

/** Parse a body: JSON for JSON content types, PHP-style form fields for url-encoded forms, else the raw text. */
export function parseBody(contentType: string, raw: string): ParsedBody {
  if (raw === '') return { kind: 'empty', value: undefined }
  if (isJsonType(contentType)) {
    try {
      return { kind: 'json', value: JSON.parse(raw) as unknown }
    } catch {
      return { kind: 'invalid-json', value: raw }
    }
  }
  if (isFormType(contentType)) return { kind: 'form', value: parsePhpQuery(raw) }
  return { kind: 'other', value: raw }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
    req.on('aborted', () => reject(new Error('request aborted')))
  })
}

/** Wait `ms`; resolves false when the emulator closes first. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** JSON answer with the portal's content type. */
export function jsonReply(status: number, body: unknown, errorCode?: string): Reply {
  return errorCode === undefined ? { status, body } : { status, body, errorCode }
}

/** What an emulator's server does with each request (see {@link createEmulatorServer}). */
export type EmulatorListener = (req: IncomingMessage, res: ServerResponse) => void

/**
 * An HTTP server that logs every request, applies the forced faults (drop, delay, latency), runs the route's handler
 * and writes its JSON answer.
 */
export function createEmulatorServer(
  state: EmulatorState,
  server: EmulatorServerName,
  router: Router,
): Server {
  return createServer(emulatorListener(state, server, router))
}

/** The request handling of {@link createEmulatorServer}, for a server that serves many emulated portals. */
export function emulatorListener(
  state: EmulatorState,
  server: EmulatorServerName,
  router: Router,
): EmulatorListener {
  return (req, res) => {
    const httpMethod = req.method ?? 'GET'
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const route = router(url, httpMethod)
    const headers = flatHeaders(req.headers)
    const contentType = headers['content-type'] ?? ''
    const entry = state.log.start({
      at: state.now(),
      server,
      httpMethod,
      path: url.pathname,
      query: flatQuery(url),
      headers,
      contentType,
      body: undefined,
      rawBody: '',
      kind: route.kind,
      ...(route.apiVersion ? { apiVersion: route.apiVersion } : {}),
      ...(route.restMethod !== undefined ? { restMethod: route.restMethod } : {}),
    })
    res.on('close', () => {
      if (!res.writableFinished && !entry.dropped) entry.clientClosed = true
    })
    const target = { server, method: route.restMethod }
    const drop = state.faults.takeDrop(target)
    if (drop === 'headers') {
      entry.dropped = true
      req.socket.destroy()
      return
    }
    const run = async (): Promise<void> => {
      const rawBody = await readBody(req)
      const body = parseBody(contentType, rawBody)
      entry.rawBody = rawBody
      entry.body = body.value
      if (drop === 'body') {
        entry.dropped = true
        req.socket.destroy()
        return
      }
      const held = state.faults.hold(target, state.closing.signal)
      if (held) {
        await held
        if (state.closing.signal.aborted) return
      }
      const delay = state.settings.latencyMs + state.faults.takeDelay(target)
      if (delay > 0 && !(await sleep(delay, state.closing.signal))) return
      const call: IncomingCall = {
        httpMethod,
        url,
        headers,
        contentType,
        rawBody,
        body,
        entry,
        watch: new Stopwatch(state.now),
      }
      let reply: Reply
      try {
        reply = await route.handle(call)
      } catch (error) {
        const description = error instanceof Error ? error.message : String(error)
        reply = jsonReply(
          500,
          { error: 'INTERNAL_SERVER_ERROR', error_description: description },
          'INTERNAL_SERVER_ERROR',
        )
      }
      if (state.closing.signal.aborted) return
      entry.status = reply.status
      if (reply.errorCode !== undefined) entry.errorCode = reply.errorCode
      if (drop === 'response') {
        entry.dropped = true
        req.socket.destroy()
        return
      }
      const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
      res.writeHead(reply.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(payload)),
        ...reply.headers,
      })
      res.end(payload)
    }
    run().catch(() => {
      // the client went away while the body was read; nothing to answer
      if (!res.headersSent) req.socket.destroy()
    })
  }
}
