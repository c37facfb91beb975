import {
  type EmulatorApiVersion,
  EmulatorListPage,
  type EmulatorRequestKind,
  EmulatorRestError,
  type EmulatorServerName,
  type PortalEmulator,
} from '../testing/index.js'
import { ControlError, field, refuseUnknownKeys } from './json-body.js'

/** What a route is given: the running emulator, the JSON body, the query and the path's parameter. */
export interface RouteInput {
  emulator: PortalEmulator
  body: Record<string, unknown>
  query: URLSearchParams
  /** The part of the path a route with a trailing `*` matched (a method's name). */
  param: string
}

/** The request kinds of the log (`GET /log?kind=`): every kind the emulator logs, as its type lists them. */
const LOG_KINDS = Object.keys({
  token: true,
  rest: true,
  batch: true,
  webhook: true,
  other: true,
} satisfies Record<EmulatorRequestKind, true>)

/** One route of the control API. */
export interface ControlRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** The path; a trailing `*` matches one more segment, handed over as `param`. */
  path: string
  /** The body's fields it reads (none when absent): any other is refused, naming it. */
  fields?: readonly string[]
  /** The query's parameters it reads (none when absent), likewise. */
  query?: readonly string[]
  handle(input: RouteInput): unknown
}

function server(body: Record<string, unknown>): EmulatorServerName | undefined {
  const value = field.string(body, 'server')
  if (value !== undefined && value !== 'portal' && value !== 'oauth')
    throw new ControlError(400, "server must be 'portal' or 'oauth'")
  return value
}

function filter(body: Record<string, unknown>): { server?: EmulatorServerName; method?: string } {
  const method = field.string(body, 'method')
  const name = server(body)
  return { ...(name && { server: name }), ...(method && { method: method.toLowerCase() }) }
}

function versions(body: Record<string, unknown>): EmulatorApiVersion[] | undefined {
  const value = body.versions
  if (value === undefined) return undefined
  if (!Array.isArray(value) || value.some((entry) => entry !== 'v2' && entry !== 'v3'))
    throw new ControlError(400, "versions must be an array of 'v2' and 'v3'")
  return value as EmulatorApiVersion[]
}

/** Sends an install event's form body to `url` as the portal does; the application's answer comes back. */
async function sendInstallEvent(input: RouteInput): Promise<unknown> {
  const { body, emulator } = input
  const event = field.requiredString(body, 'event')
  if (event !== 'ONAPPINSTALL' && event !== 'ONAPPUPDATE' && event !== 'ONAPPUNINSTALL')
    throw new ControlError(400, 'event must be ONAPPINSTALL, ONAPPUPDATE or ONAPPUNINSTALL')
  const target = field.requiredString(body, 'url')
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new ControlError(400, 'url must be an absolute http(s) URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ControlError(400, 'url must be an absolute http(s) URL')
  const expiresIn = field.count(body, 'expiresIn')
  const applicationToken = field.string(body, 'applicationToken')
  const userId = field.count(body, 'userId')
  // An uninstall with the installation's own application token is the portal's: the application is removed first.
  const form =
    event === 'ONAPPUNINSTALL' && applicationToken === undefined
      ? emulator.uninstall()
      : emulator.installEvent(event, {
          ...(expiresIn !== undefined && { expiresIn }),
          ...(applicationToken !== undefined && { applicationToken }),
          ...(userId !== undefined && { userId }),
        })
  let answer: Response
  try {
    answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      signal: AbortSignal.timeout(30_000),
    })
  } catch (error) {
    throw new ControlError(
      502,
      `the event could not be delivered to ${url.origin}: ${(error as Error).message}`,
    )
  }
  return { status: answer.status, body: await answer.text() }
}

/** The REST error a defined method answers: `{ code, description?, status? }`. */
function restError(error: Record<string, unknown>): EmulatorRestError {
  refuseUnknownKeys(error, ['code', 'description', 'status'], 'error')
  const code = error.code
  if (typeof code !== 'string' || code === '')
    throw new ControlError(400, 'error.code must be a non-empty string')
  const description = error.description ?? ''
  if (typeof description !== 'string') throw new ControlError(400, 'error.description must be a string')
  const status = error.status ?? 400
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
    throw new ControlError(400, 'error.status must be an HTTP error status (400 to 599)')
  return new EmulatorRestError(code, description, status)
}

/** Registers a method that answers `result` (with v2 list navigation `next`/`total`) or the REST error `error`. */
function defineMethod(input: RouteInput): unknown {
  const { body, emulator, param } = input
  const name = decodeURIComponent(param)
  if (!/^[\w.]+$/.test(name))
    throw new ControlError(400, 'the method name must be letters, digits, _ and dots')
  const error = field.object(body, 'error')
  if (error === undefined && !('result' in body))
    throw new ControlError(
      400,
      'give the answer as result (any JSON) or error ({ code, description, status })',
    )
  const next = field.count(body, 'next')
  const total = field.count(body, 'total')
  const failure = error && restError(error)
  const result: unknown = body.result
  const methodVersions = versions(body)
  emulator.defineMethod(
    name,
    () => {
      if (failure) throw failure
      const copy: unknown = structuredClone(result)
      if (next === undefined && total === undefined) return copy
      return new EmulatorListPage(copy, {
        ...(next !== undefined && { next }),
        ...(total !== undefined && { total }),
      })
    },
    methodVersions ? { versions: methodVersions } : undefined,
  )
  return { method: name.toLowerCase() }
}

function applySettings({ body, emulator }: RouteInput): unknown {
  const latency = field.count(body, 'latencyMs')
  if (latency !== undefined) emulator.setLatency(latency)
  const admin = field.boolean(body, 'isAdmin')
  if (admin !== undefined) emulator.setAdmin(admin, field.count(body, 'userId'))
  if (body.rateLimit !== undefined) {
    const limit = body.rateLimit === false ? false : field.object(body, 'rateLimit')
    if (limit === undefined)
      throw new ControlError(400, 'rateLimit must be false or { burstLimit, drainRate }')
    if (limit !== false) refuseUnknownKeys(limit, ['burstLimit', 'drainRate'], 'rateLimit')
    emulator.setRateLimit(
      limit === false
        ? false
        : { burstLimit: field.count(limit, 'burstLimit') ?? 50, drainRate: Number(limit.drainRate ?? 2) },
    )
  }
  if (body.operatingLimit !== undefined) {
    const limit = body.operatingLimit === false ? false : field.object(body, 'operatingLimit')
    if (limit === undefined)
      throw new ControlError(400, 'operatingLimit must be false or { windowMs, limitMs }')
    if (limit !== false) refuseUnknownKeys(limit, ['windowMs', 'limitMs'], 'operatingLimit')
    emulator.setOperatingLimit(
      limit === false
        ? false
        : {
            windowMs: field.count(limit, 'windowMs') ?? 600_000,
            limitMs: field.count(limit, 'limitMs') ?? 480_000,
          },
    )
  }
  for (const [method, ms] of Object.entries(field.object(body, 'methodCost') ?? {})) {
    if (typeof ms !== 'number' || ms < 0)
      throw new ControlError(400, `methodCost.${method} must be a number of ms`)
    emulator.setMethodCost(method, ms)
  }
  return {}
}

/** The log entries, optionally only those of one kind (`token`, `rest`, `batch`, ...) after sequence `since`. */
function readLog({ emulator, query }: RouteInput): unknown {
  const kind = query.get('kind')
  if (kind !== null && !LOG_KINDS.includes(kind))
    throw new ControlError(400, `kind must be one of ${LOG_KINDS.join(', ')}, not ${kind}`)
  const sinceText = query.get('since') ?? '0'
  const since = Number(sinceText)
  if (!/^\d+$/.test(sinceText)) throw new ControlError(400, 'since must be a non-negative integer')
  return emulator.log.entries.filter((entry) => (kind === null || entry.kind === kind) && entry.seq > since)
}

/** The longest `POST /wait-for-held` waits, ms. */
const HELD_WAIT_MAX_MS = 60_000

/** Answers once `count` requests are held (`{ held: true }`), or `{ held: false }` after `timeoutMs`. */
async function waitForHeld({ emulator, body }: RouteInput): Promise<unknown> {
  const count = field.count(body, 'count') ?? 1
  const timeout = Math.min(field.count(body, 'timeoutMs') ?? 10_000, HELD_WAIT_MAX_MS)
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeout)
  })
  const held = await Promise.race([emulator.waitForHeld(count).then(() => true as const), expired])
  clearTimeout(timer)
  return { held }
}

/** A route that runs a control taking no argument and answers `{}`. */
function act(run: (emulator: PortalEmulator) => void): ControlRoute['handle'] {
  return ({ emulator }) => {
    run(emulator)
    return {}
  }
}

/** Every route of the control API (docs/cli.md documents each). */
export const CONTROL_ROUTES: readonly ControlRoute[] = [
  { method: 'GET', path: '/log', query: ['kind', 'since'], handle: readLog },
  { method: 'DELETE', path: '/log', handle: act((emulator) => emulator.log.clear()) },
  {
    method: 'POST',
    path: '/pair',
    fields: ['expiresIn', 'userId'],
    handle: ({ emulator, body }) => {
      const expiresIn = field.count(body, 'expiresIn')
      const userId = field.count(body, 'userId')
      return emulator.issueAuthParams({
        ...(expiresIn !== undefined && { expiresIn }),
        ...(userId !== undefined && { userId }),
      })
    },
  },
  {
    method: 'GET',
    path: '/tokens',
    handle: ({ emulator }) => ({
      accessToken: emulator.currentAccessToken ?? null,
      refreshToken: emulator.currentRefreshToken ?? null,
    }),
  },
  { method: 'POST', path: '/expire-tokens', handle: act((emulator) => emulator.expireAccessTokens()) },
  {
    method: 'POST',
    path: '/fail-refresh',
    fields: ['error', 'error_description', 'status', 'times'],
    handle: ({ emulator, body }) => {
      const description = field.string(body, 'error_description')
      const status = field.count(body, 'status')
      emulator.failOAuth(
        {
          error: field.string(body, 'error') ?? 'invalid_grant',
          ...(description !== undefined && { error_description: description }),
          ...(status !== undefined && { status }),
        },
        field.count(body, 'times') ?? 1,
      )
      return {}
    },
  },
  {
    method: 'POST',
    path: '/fail-token-requests',
    fields: ['status', 'body', 'contentType', 'processed', 'times'],
    handle: ({ emulator, body }) => {
      const status = field.count(body, 'status')
      if (status === undefined || status < 400)
        throw new ControlError(400, 'status must be an HTTP error status')
      const text = field.string(body, 'body')
      const contentType = field.string(body, 'contentType')
      const processed = field.boolean(body, 'processed')
      emulator.failTokenRequests(
        {
          status,
          ...(text !== undefined && { body: text }),
          ...(contentType !== undefined && { contentType }),
          ...(processed !== undefined && { processed }),
        },
        field.count(body, 'times') ?? 1,
      )
      return {}
    },
  },
  {
    method: 'POST',
    path: '/drop-connections',
    fields: ['times', 'server', 'method', 'after'],
    handle: ({ emulator, body }) => {
      const after = field.string(body, 'after')
      if (after !== undefined && after !== 'headers' && after !== 'body' && after !== 'response')
        throw new ControlError(400, "after must be 'headers', 'body' or 'response'")
      emulator.dropConnections(field.count(body, 'times') ?? 1, { ...filter(body), ...(after && { after }) })
      return {}
    },
  },
  {
    method: 'POST',
    path: '/delay-requests',
    fields: ['ms', 'times', 'server', 'method'],
    handle: ({ emulator, body }) => {
      const ms = field.count(body, 'ms')
      if (ms === undefined) throw new ControlError(400, 'ms is required')
      emulator.delayRequests(ms, field.count(body, 'times') ?? 1, filter(body))
      return {}
    },
  },
  {
    method: 'POST',
    path: '/hold-requests',
    fields: ['times', 'server', 'method'],
    handle: ({ emulator, body }) => {
      emulator.holdRequests(field.count(body, 'times') ?? 1, filter(body))
      return {}
    },
  },
  { method: 'POST', path: '/wait-for-held', fields: ['count', 'timeoutMs'], handle: waitForHeld },
  { method: 'POST', path: '/release-held', handle: act((emulator) => emulator.releaseHeldRequests()) },
  {
    method: 'POST',
    path: '/mutate-token-responses',
    fields: ['set', 'remove', 'times'],
    handle: ({ emulator, body }) => {
      const remove = body.remove ?? []
      if (!Array.isArray(remove) || remove.some((key) => typeof key !== 'string'))
        throw new ControlError(400, 'remove must be an array of key names')
      emulator.mutateTokenResponses(
        { set: field.object(body, 'set') ?? {}, remove: remove as string[] },
        field.count(body, 'times') ?? 1,
      )
      return {}
    },
  },
  { method: 'DELETE', path: '/faults', handle: act((emulator) => emulator.clearFaults()) },
  {
    method: 'PUT',
    path: '/settings',
    fields: ['latencyMs', 'isAdmin', 'userId', 'rateLimit', 'operatingLimit', 'methodCost'],
    handle: applySettings,
  },
  {
    method: 'PUT',
    path: '/methods/*',
    fields: ['result', 'error', 'next', 'total', 'versions'],
    handle: defineMethod,
  },
  {
    method: 'POST',
    path: '/install-events',
    fields: ['event', 'url', 'expiresIn', 'applicationToken', 'userId'],
    handle: sendInstallEvent,
  },
  {
    method: 'POST',
    path: '/webhooks',
    fields: ['userId', 'scope'],
    handle: ({ emulator, body }) => {
      const userId = field.count(body, 'userId')
      const scope = field.string(body, 'scope')
      return {
        url: emulator.createWebhook({
          ...(userId !== undefined && { userId }),
          ...(scope !== undefined && { scope }),
        }),
      }
    },
  },
  {
    method: 'POST',
    path: '/authorization-codes',
    handle: ({ emulator }) => ({ code: emulator.issueAuthorizationCode() }),
  },
]
