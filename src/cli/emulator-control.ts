import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PortalEmulator } from '../testing/index.js'
import { CONTROL_ROUTES, type ControlRoute } from './emulator-routes.js'
import { ControlError, readJsonObject, refuseUnknownKeys } from './json-body.js'

/** The loopback host names a request to the control API may carry in `Host` (a DNS-rebound name is refused). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

function route(method: string, path: string): { route: ControlRoute; param: string } | undefined {
  for (const candidate of CONTROL_ROUTES) {
    if (candidate.method !== method) continue
    if (candidate.path === path) return { route: candidate, param: '' }
    if (candidate.path.endsWith('/*')) {
      const prefix = candidate.path.slice(0, -1)
      const rest = path.slice(prefix.length)
      if (path.startsWith(prefix) && rest !== '' && !rest.includes('/'))
        return { route: candidate, param: rest }
    }
  }
  return undefined
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  })
  response.end(text)
}

/**
 * Refuses what a browser could send: a request with an `Origin` (a page's script) or a `Host` that is not a loopback
 * name (DNS rebinding). The control API is for scripts and tests on this machine.
 */
function refuseForeign(request: IncomingMessage): void {
  if (request.headers.origin !== undefined)
    throw new ControlError(403, 'requests from a browser page (with an Origin header) are refused')
  const host = (request.headers.host ?? '').replace(/:\d+$/, '')
  if (!LOOPBACK_HOSTS.has(host))
    throw new ControlError(403, 'the Host header must name 127.0.0.1 or localhost')
}

async function handle(
  emulator: PortalEmulator,
  info: () => unknown,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  try {
    refuseForeign(request)
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const method = request.method ?? 'GET'
    if (method === 'GET' && (url.pathname === '/' || url.pathname === '/info'))
      return answer(response, 200, info())
    const found = route(method, url.pathname)
    if (!found) {
      const known = CONTROL_ROUTES.some(
        (candidate) => route(candidate.method, url.pathname)?.route === candidate,
      )
      throw new ControlError(known ? 405 : 404, `no route ${method} ${url.pathname} (see docs/cli.md)`)
    }
    const body = await readJsonObject(request)
    const where = `${method} ${found.route.path.replace(/\*$/, '<name>')}`
    refuseUnknownKeys(body, found.route.fields ?? [], where)
    refuseUnknownKeys(url.searchParams, found.route.query ?? [], `${where}'s query`)
    const value = await found.route.handle({ emulator, body, query: url.searchParams, param: found.param })
    answer(response, 200, value ?? {})
  } catch (error) {
    if (error instanceof ControlError) return answer(response, error.status, { error: error.message })
    // A control that the emulator refused (a RangeError naming the argument) is the caller's mistake.
    if (error instanceof RangeError || error instanceof TypeError)
      return answer(response, 400, { error: error.message })
    answer(response, 500, { error: error instanceof Error ? error.message : String(error) })
  }
}

/** The control API of a running emulator (docs/cli.md, "Control API"): a JSON HTTP server on 127.0.0.1. */
export interface EmulatorControl {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string
  close(): Promise<void>
}

/** Starts the control API of `emulator` on `127.0.0.1:port` (0: a free port); `info` is what `GET /info` answers. */
export async function startEmulatorControl(
  emulator: PortalEmulator,
  port: number,
  info: () => unknown,
): Promise<EmulatorControl> {
  const server: Server = createServer((request, response) => {
    void handle(emulator, info, request, response)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
