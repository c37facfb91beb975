import { channel, tracingChannel } from 'node:diagnostics_channel'
import type { SecretRedactor } from '../errors/to-error.js'
import type { ApiVersion } from '../types/api-version.js'

/**
 * Names of the `node:diagnostics_channel` channels the package publishes on. Subscribe with
 * `diagnostics_channel.subscribe(DiagnosticsChannel.callEnd, (message) => ...)`. Messages hold no token or secret;
 * nothing is measured or built while a channel has no subscriber.
 */
export const DiagnosticsChannel = {
  /** A REST call starts (after its options were validated): {@link CallStartMessage}. */
  callStart: 'portal-oauth:call:start',
  /** A REST call got an answer, success or portal error: {@link CallEndMessage}. */
  callEnd: 'portal-oauth:call:end',
  /** A REST call rejected (network, timeout, cancelled, destroyed): {@link CallErrorMessage}. */
  callError: 'portal-oauth:call:error',
  /** A token refresh starts: {@link RefreshStartMessage}. */
  refreshStart: 'portal-oauth:refresh:start',
  /** A token refresh gave a new pair: {@link RefreshEndMessage}. */
  refreshEnd: 'portal-oauth:refresh:end',
  /** A token refresh failed: {@link RefreshErrorMessage}. */
  refreshError: 'portal-oauth:refresh:error',
  /** An attempt waited for the limiter (operating budget or rate bucket): {@link LimiterWaitMessage}. */
  limiterWait: 'portal-oauth:limiter:wait',
} as const

/**
 * Names of the tracing channels (`diagnostics_channel.tracingChannel`, the shape undici, ioredis and node-redis use):
 * each has `start`, `end`, `asyncStart`, `asyncEnd` and `error` sub-channels (`tracing:portal-oauth:call:start`, ...).
 * A call is traced with `tracePromise`, so a subscriber's `start` handler runs in the caller's async context and a
 * store bound to `start` (`bindStore`) is active for the whole call. Contexts hold no token or secret.
 */
export const TracingChannelName = {
  /** One REST call, from its start to its result or rejection: {@link CallTraceContext}. */
  call: 'portal-oauth:call',
  /** One token refresh: {@link RefreshTraceContext}. */
  refresh: 'portal-oauth:refresh',
} as const

/** The context object of {@link TracingChannelName.call}; the fields after `requestId` are set as the call goes on. */
export interface CallTraceContext {
  /** As in {@link CallStartMessage}. */
  callId: number
  /** `v2` or `v3`. */
  apiVersion: ApiVersion
  /** The REST method. */
  method: string
  /** The call's `requestId`, when it has one. */
  requestId?: string
  /** The portal (`memberId`), when the client holds a pair. */
  memberId?: string
  /** Host the request went to (set when the first attempt leaves). */
  serverAddress?: string
  /** Port the request went to. */
  serverPort?: number
  /** HTTP status of the answer (set before `asyncStart`). */
  status?: number
  /** Whether the portal answered without error. */
  isSuccess?: boolean
  /** The portal's error code when it answered with one. */
  errorCode?: string
  /** Requests sent for the call, retries included. */
  attempts?: number
  /** The call's result, set on success. */
  result?: unknown
  /**
   * Why the call rejected: a description read once from the error the caller gets, every secret removed (never the
   * error itself, whose getters could say something else at the next read).
   */
  error?: DiagnosticsErrorInfo
}

/** The context object of {@link TracingChannelName.refresh}. */
export interface RefreshTraceContext {
  /** Generation of the pair being replaced. */
  generation: number
  /** The portal (`memberId`). */
  memberId?: string
  /** Generation and expiry of the new pair, set on success. */
  result?: {
    /** Generation of the new pair. */
    generation: number
    /** Expiry of its access token, Unix seconds. */
    expires: number
  }
  /** Why the refresh failed: a description whose message has every known secret removed. */
  error?: DiagnosticsErrorInfo
}

/**
 * What a publication says of an error: its kind, code, message and status, read once from the error (own and
 * inherited properties, getters included) with every known secret removed. Plain data: reading it runs no code.
 */
export interface DiagnosticsErrorInfo {
  /** `AjaxError`, `RefreshTokenError`, `SdkError`, `Error`, ... */
  name: string
  /** The SDK or OAuth code (`NETWORK_ERROR`, `invalid_grant`, ...), `''` when there is none. */
  code: string
  /** The message, secrets redacted. */
  message: string
  /** HTTP status, when the error carries one. */
  status?: number
}

/** Published on {@link DiagnosticsChannel.callStart}. */
export interface CallStartMessage {
  /** Tells the publications of one call from others in the process (increasing). */
  callId: number
  /** `v2` or `v3`. */
  apiVersion: ApiVersion
  /** The REST method. */
  method: string
  /** The call's `requestId`, when it has one. */
  requestId?: string
}

/** Fields of the last publication of a call. */
export interface CallOutcome {
  /** Requests sent for the call, retries included. */
  attempts: number
  /** Time the attempts waited for the limiter, ms. */
  limiterWaitMs: number
  /** From the start of the call to this publication, ms. */
  durationMs: number
}

/** Published on {@link DiagnosticsChannel.callEnd}. */
export interface CallEndMessage extends CallStartMessage, CallOutcome {
  /** HTTP status of the answer. */
  status: number
  /** Whether the portal answered without error. */
  isSuccess: boolean
  /** The portal's error code when `isSuccess` is false. */
  errorCode?: string
}

/** Published on {@link DiagnosticsChannel.callError}. */
export interface CallErrorMessage extends CallStartMessage, CallOutcome {
  /** Why the call rejected. */
  error: DiagnosticsErrorInfo
}

/** Published on {@link DiagnosticsChannel.refreshStart}. */
export interface RefreshStartMessage {
  /** Generation of the pair being replaced (0: the pair given to the constructor). */
  generation: number
}

/** Published on {@link DiagnosticsChannel.refreshEnd}. */
export interface RefreshEndMessage {
  /** Generation of the new pair. */
  generation: number
  /** Expiry of the new access token, Unix seconds. */
  expires: number
  /** Duration of the refresh request, ms. */
  durationMs: number
}

/** Published on {@link DiagnosticsChannel.refreshError}. */
export interface RefreshErrorMessage {
  /** Generation of the pair that is still in use. */
  generation: number
  /** Until the failure, ms. */
  durationMs: number
  /** Why the refresh failed. */
  error: DiagnosticsErrorInfo
}

/** Published on {@link DiagnosticsChannel.limiterWait}. */
export interface LimiterWaitMessage {
  /** The REST method that waited. */
  method: string
  /** `operating`: the method's operating budget; `rate`: the request bucket was empty. */
  reason: 'operating' | 'rate'
  /** How long it waited, ms. */
  waitMs: number
}

/** Removes known secrets from what is published. */
type Redactor = SecretRedactor

const callStart = channel(DiagnosticsChannel.callStart)
const callEnd = channel(DiagnosticsChannel.callEnd)
const callError = channel(DiagnosticsChannel.callError)
const refreshStart = channel(DiagnosticsChannel.refreshStart)
const refreshEnd = channel(DiagnosticsChannel.refreshEnd)
const refreshError = channel(DiagnosticsChannel.refreshError)
const limiterWait = channel(DiagnosticsChannel.limiterWait)

const callTracing = tracingChannel<unknown, CallTraceContext>(TracingChannelName.call)
const refreshTracing = tracingChannel<unknown, RefreshTraceContext>(TracingChannelName.refresh)

let lastCallId = 0

/** A call being traced: exists only while a call channel has subscribers. */
export interface CallTrace {
  /** Fields of the start message, repeated in the last one. */
  readonly call: CallStartMessage
  /** The tracing channel's context, while it has subscribers. */
  readonly context: CallTraceContext | null
  /** `performance.now()` at the start. */
  readonly started: number
  /** Added up by every attempt. */
  limiterWaitMs: number
}

/** Publishes a call's start; `null` (and nothing built) when no call channel has subscribers. */
export function traceCallStart(
  apiVersion: ApiVersion,
  method: string,
  requestId: string | undefined,
  memberId: string | undefined,
): CallTrace | null {
  const traced = callTracing.hasSubscribers
  if (!traced && !callStart.hasSubscribers && !callEnd.hasSubscribers && !callError.hasSubscribers)
    return null
  lastCallId += 1
  const call: CallStartMessage =
    requestId === undefined
      ? { callId: lastCallId, apiVersion, method }
      : { callId: lastCallId, apiVersion, method, requestId }
  if (callStart.hasSubscribers) callStart.publish({ ...call })
  const context: CallTraceContext | null = traced ? { ...call } : null
  if (context && memberId !== undefined) context.memberId = memberId
  return { call, context, started: performance.now(), limiterWaitMs: 0 }
}

/** Notes where a traced call's request goes (`baseUrl` of the attempt); once per call. */
export function traceCallTarget(trace: CallTrace, baseUrl: string): void {
  const { context } = trace
  if (!context || context.serverAddress !== undefined) return
  const url = new URL(baseUrl)
  context.serverAddress = url.hostname
  context.serverPort = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port)
}

/** Publishes the answer of a traced call. */
export function traceCallEnd(
  trace: CallTrace,
  answer: { status: number; isSuccess: boolean; attempts: number; errorCode?: string | undefined },
): void {
  if (!callEnd.hasSubscribers) return
  const message: CallEndMessage = {
    ...trace.call,
    status: answer.status,
    isSuccess: answer.isSuccess,
    attempts: answer.attempts,
    limiterWaitMs: trace.limiterWaitMs,
    durationMs: performance.now() - trace.started,
  }
  if (answer.errorCode !== undefined) message.errorCode = answer.errorCode
  callEnd.publish(message)
}

/** Publishes the rejection of a traced call. */
export function traceCallError(trace: CallTrace, error: unknown, attempts: number, secrets: Redactor): void {
  if (!callError.hasSubscribers) return
  const message: CallErrorMessage = {
    ...trace.call,
    attempts,
    limiterWaitMs: trace.limiterWaitMs,
    durationMs: performance.now() - trace.started,
    error: errorInfo(error, secrets),
  }
  callError.publish(message)
}

/** A refresh being traced: `null` when no refresh channel has subscribers. */
export type RefreshTrace = {
  readonly generation: number
  readonly started: number
  /** The tracing channel's context, while it has subscribers. */
  readonly context: RefreshTraceContext | null
} | null

/**
 * Publishes a refresh's start. The refresh is not one promise the caller holds, so the tracing channel's events are
 * published by hand in `tracePromise`'s order: `start` and `end` now, `error` (on failure), `asyncStart` and
 * `asyncEnd` when it settles.
 */
export function traceRefreshStart(generation: number, memberId?: string): RefreshTrace {
  const traced = refreshTracing.hasSubscribers
  if (!traced && !refreshStart.hasSubscribers && !refreshEnd.hasSubscribers && !refreshError.hasSubscribers)
    return null
  if (refreshStart.hasSubscribers) refreshStart.publish({ generation } satisfies RefreshStartMessage)
  const context: RefreshTraceContext | null = traced ? { generation } : null
  if (context) {
    if (memberId !== undefined) context.memberId = memberId
    refreshTracing.start.publish(context)
    refreshTracing.end.publish(context)
  }
  return { generation, started: performance.now(), context }
}

/** Publishes the new pair's generation and expiry. */
export function traceRefreshEnd(trace: RefreshTrace, generation: number, expires: number): void {
  if (!trace) return
  if (refreshEnd.hasSubscribers) {
    const message: RefreshEndMessage = { generation, expires, durationMs: performance.now() - trace.started }
    refreshEnd.publish(message)
  }
  const { context } = trace
  if (!context) return
  context.result = { generation, expires }
  refreshTracing.asyncStart.publish(context)
  refreshTracing.asyncEnd.publish(context)
}

/** Publishes a refresh failure. */
export function traceRefreshError(trace: RefreshTrace, error: unknown, secrets: Redactor): void {
  if (!trace) return
  const info = errorInfo(error, secrets)
  if (refreshError.hasSubscribers) {
    const message: RefreshErrorMessage = {
      generation: trace.generation,
      durationMs: performance.now() - trace.started,
      error: info,
    }
    refreshError.publish(message)
  }
  const { context } = trace
  if (!context) return
  context.error = info
  refreshTracing.error.publish(context)
  refreshTracing.asyncStart.publish(context)
  refreshTracing.asyncEnd.publish(context)
}

/** `waiting` resolved after a wait of the limiter; publishes how long it took. Unchanged without subscribers. */
export function traceLimiterWait(
  waiting: Promise<void>,
  method: string,
  reason: LimiterWaitMessage['reason'],
): Promise<void> {
  if (!limiterWait.hasSubscribers) return waiting
  const started = performance.now()
  return waiting.then(() => {
    const message: LimiterWaitMessage = { method, reason, waitMs: performance.now() - started }
    limiterWait.publish(message)
  })
}

/** What a publication says of `thrown`: its snapshot's summary (an error read before is not read again). */
function errorInfo(thrown: unknown, secrets: Redactor): DiagnosticsErrorInfo {
  return secrets.snapshot(thrown).summary()
}

/** What {@link traceCallOutcome} reads of a call's result. */
interface TracedResult {
  readonly isSuccess: boolean
  getStatus(): number
  getErrors(): ReadonlyArray<{ code: string }>
}

/** `run()`, publishing how the traced call ended; `attempts()` is read once it settled. */
export function traceCallOutcome<R extends TracedResult>(
  run: () => Promise<R>,
  trace: CallTrace,
  attempts: () => number,
  secrets: Redactor,
): Promise<R> {
  const { context } = trace
  if (!context) return publishCallOutcome(run, trace, attempts, secrets)
  // tracePromise's events by hand, in its order and with its async context (`start.runStores`): tracePromise would
  // set the context's `error` to the rejection itself, and a subscriber must see its redacted snapshot only.
  return callTracing.start.runStores(context, () => {
    try {
      return publishCallOutcome(run, trace, attempts, secrets).then(
        (result) => {
          context.result = result
          callTracing.asyncStart.publish(context)
          callTracing.asyncEnd.publish(context)
          return result
        },
        (error: unknown) => {
          callTracing.error.publish(context)
          callTracing.asyncStart.publish(context)
          callTracing.asyncEnd.publish(context)
          throw error
        },
      )
    } finally {
      callTracing.end.publish(context)
    }
  })
}

async function publishCallOutcome<R extends TracedResult>(
  run: () => Promise<R>,
  trace: CallTrace,
  attempts: () => number,
  secrets: Redactor,
): Promise<R> {
  const { context } = trace
  try {
    const result = await run()
    const errorCode = result.getErrors()[0]?.code
    traceCallEnd(trace, {
      status: result.getStatus(),
      isSuccess: result.isSuccess,
      attempts: attempts(),
      errorCode,
    })
    if (context) {
      context.status = result.getStatus()
      context.isSuccess = result.isSuccess
      context.attempts = attempts()
      if (errorCode !== undefined) context.errorCode = errorCode
    }
    return result
  } catch (error) {
    traceCallError(trace, error, attempts(), secrets)
    if (context) {
      context.attempts = attempts()
      const info = errorInfo(error, secrets)
      context.error = info
      // An error without an answer says status 0: no HTTP status to report.
      if (info.status !== undefined && info.status > 0) context.status = info.status
    }
    throw error
  }
}
