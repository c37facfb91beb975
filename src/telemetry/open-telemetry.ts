import { tracingChannel } from 'node:diagnostics_channel'
import type { Attributes, MeterProvider, Span, TracerProvider } from '@opentelemetry/api'
import {
  type CallTraceContext,
  type RefreshTraceContext,
  TracingChannelName,
} from '../diagnostics/channels.js'
import { PACKAGE_VERSION } from '../version.js'
import { context, metrics, SpanKind, SpanStatusCode, trace } from './opentelemetry-api.js'

/** Options of {@link instrumentPortalOAuth}. */
export interface PortalOAuthInstrumentationOptions {
  /** Where spans go. Default the global tracer provider (`trace.setGlobalTracerProvider`). */
  tracerProvider?: TracerProvider
  /** Where the request-duration histogram goes. Default the global meter provider. */
  meterProvider?: MeterProvider
}

/** What {@link instrumentPortalOAuth} returns. */
export interface PortalOAuthInstrumentation {
  /** Stops making spans and measurements (unsubscribes from the tracing channels). */
  disable(): void
}

/** The stable semantic conventions' advice for `http.client.request.duration`, seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

/** What is kept of a call while it runs. */
interface OpenCall {
  span: Span
  started: number
}

/**
 * What the semantic conventions call `error.type`: the SDK or portal code, else the error's name, else the HTTP
 * status. Read from the context's redacted description of the error, never from the error itself.
 */
function callErrorType(call: CallTraceContext): string | undefined {
  if (call.error !== undefined) return call.error.code || call.error.name || 'Error'
  if (call.isSuccess === false) return call.errorCode ?? String(call.status)
  return undefined
}

/** Attributes every call span and measurement has, as far as the call got. */
function callAttributes(call: CallTraceContext): Attributes {
  const attributes: Attributes = { 'http.request.method': 'POST', 'portal.rest.method': call.method }
  if (call.serverAddress !== undefined) attributes['server.address'] = call.serverAddress
  if (call.serverPort !== undefined) attributes['server.port'] = call.serverPort
  if (call.memberId !== undefined) attributes['portal.member_id'] = call.memberId
  if (call.status !== undefined) attributes['http.response.status_code'] = call.status
  const errorType = callErrorType(call)
  if (errorType !== undefined) attributes['error.type'] = errorType
  return attributes
}

/**
 * Makes an OpenTelemetry span per REST call (kind `CLIENT`, named `POST <method>`, a child of the span active when
 * the call was made) and per token refresh, and records `http.client.request.duration` (seconds) with the stable
 * HTTP attributes (`http.request.method`, `server.address`, `server.port`, `http.response.status_code`,
 * `error.type`) plus `portal.rest.method` and `portal.member_id`. It listens on the package's tracing channels
 * ({@link TracingChannelName}); no token or secret reaches an attribute. Import it from `portal-oauth/otel`, with
 * `@opentelemetry/api` installed.
 */
export function instrumentPortalOAuth(
  options: PortalOAuthInstrumentationOptions = {},
): PortalOAuthInstrumentation {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
    'portal-oauth',
    PACKAGE_VERSION,
  )
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(
    'portal-oauth',
    PACKAGE_VERSION,
  )
  const duration = meter.createHistogram('http.client.request.duration', {
    unit: 's',
    description: 'Duration of HTTP client requests.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  })
  const calls = new WeakMap<CallTraceContext, OpenCall>()
  const refreshes = new WeakMap<RefreshTraceContext, Span>()

  const callHandlers = {
    start(call: CallTraceContext) {
      const attributes: Attributes = {
        'http.request.method': 'POST',
        'portal.rest.method': call.method,
        'portal.rest.api_version': call.apiVersion,
      }
      if (call.memberId !== undefined) attributes['portal.member_id'] = call.memberId
      if (call.requestId !== undefined) attributes['portal.request_id'] = call.requestId
      const span = tracer.startSpan(
        `POST ${call.method}`,
        { kind: SpanKind.CLIENT, attributes },
        context.active(),
      )
      calls.set(call, { span, started: performance.now() })
    },
    end() {},
    asyncStart() {},
    error() {},
    asyncEnd(call: CallTraceContext) {
      const open = calls.get(call)
      if (!open) return
      calls.delete(call)
      const attributes = callAttributes(call)
      open.span.setAttributes(attributes)
      if (call.attempts !== undefined) open.span.setAttribute('portal.attempts', call.attempts)
      const errorType = attributes['error.type']
      if (errorType !== undefined)
        open.span.setStatus({ code: SpanStatusCode.ERROR, message: String(errorType) })
      open.span.end()
      duration.record((performance.now() - open.started) / 1000, attributes)
    },
  }

  const refreshHandlers = {
    start(refresh: RefreshTraceContext) {
      const attributes: Attributes = { 'portal.token.generation': refresh.generation }
      if (refresh.memberId !== undefined) attributes['portal.member_id'] = refresh.memberId
      refreshes.set(refresh, tracer.startSpan('portal-oauth refresh', { kind: SpanKind.CLIENT, attributes }))
    },
    end() {},
    asyncStart() {},
    error() {},
    asyncEnd(refresh: RefreshTraceContext) {
      const span = refreshes.get(refresh)
      if (!span) return
      refreshes.delete(refresh)
      if (refresh.result) span.setAttribute('portal.token.new_generation', refresh.result.generation)
      if (refresh.error) {
        span.setAttribute('error.type', refresh.error.code || refresh.error.name)
        span.setStatus({ code: SpanStatusCode.ERROR, message: refresh.error.message })
      }
      span.end()
    },
  }

  const callChannel = tracingChannel<unknown, CallTraceContext>(TracingChannelName.call)
  const refreshChannel = tracingChannel<unknown, RefreshTraceContext>(TracingChannelName.refresh)
  callChannel.subscribe(callHandlers)
  refreshChannel.subscribe(refreshHandlers)
  let enabled = true
  return {
    disable() {
      if (!enabled) return
      enabled = false
      callChannel.unsubscribe(callHandlers)
      refreshChannel.unsubscribe(refreshHandlers)
    },
  }
}
