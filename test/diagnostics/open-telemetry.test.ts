import { context, type SpanContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  AggregationTemporality,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { instrumentPortalOAuth, type PortalOAuthInstrumentation } from '../../src/otel.js'
import { type Rig, startRig } from '../helpers.js'

const spans = new InMemorySpanExporter()
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] })
let metricExporter: InMemoryMetricExporter
let meterProvider: MeterProvider
const contextManager = new AsyncLocalStorageContextManager()

let instrumentation: PortalOAuthInstrumentation
let rig: Rig
/** Every token and secret the client held during a test. */
const secrets = new Set<string>()

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable())
})
afterAll(async () => {
  context.disable()
  await tracerProvider.shutdown()
})
beforeEach(async () => {
  // A meter provider per test: its measurements start at zero.
  metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 }),
    ],
  })
  instrumentation = instrumentPortalOAuth({ tracerProvider, meterProvider })
  rig = await startRig()
  noteSecrets()
})
afterEach(async () => {
  noteSecrets()
  instrumentation.disable()
  await rig.close()
  spans.reset()
  await meterProvider.shutdown()
})

function noteSecrets(): void {
  const params = rig.portal.auth.getParams()
  for (const value of [
    params.accessToken,
    params.refreshToken,
    params.applicationToken,
    rig.emulator.clientSecret,
  ])
    secrets.add(value)
}

function endpoint(url: string): { address: string; port: number } {
  const parsed = new URL(url)
  return { address: parsed.hostname, port: Number(parsed.port) }
}

function onlySpan(name: string): ReadableSpan {
  const found = spans.getFinishedSpans().filter((span) => span.name === name)
  expect(found).toHaveLength(1)
  return found[0]!
}

async function durationPoints(): Promise<HistogramMetricData['dataPoints']> {
  await meterProvider.forceFlush()
  const metrics =
    metricExporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? []
  const histogram = metrics.find((metric) => metric.descriptor.name === 'http.client.request.duration')
  expect(histogram?.descriptor.unit).toBe('s')
  return (histogram as HistogramMetricData | undefined)?.dataPoints ?? []
}

/** Every attribute, status message and event of the spans and measurements, as one text. */
async function everythingRecorded(): Promise<string> {
  const recorded = spans.getFinishedSpans().map((span) => ({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
  }))
  return JSON.stringify({ recorded, points: await durationPoints() })
}

describe('portal-oauth/otel', () => {
  it('a successful call: a CLIENT span with the stable HTTP attributes, the REST method and member id, and a duration', async () => {
    const result = await rig.portal.actions.v2.call.make({ method: 'profile', requestId: 'r-1' })
    expect(result.isSuccess).toBe(true)
    const span = onlySpan('POST profile')
    const { address, port } = endpoint(rig.emulator.clientEndpoint)
    expect(span.kind).toBe(SpanKind.CLIENT)
    expect(span.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': address,
      'server.port': port,
      'http.response.status_code': 200,
      'portal.rest.method': 'profile',
      'portal.rest.api_version': 'v2',
      'portal.member_id': rig.emulator.memberId,
      'portal.request_id': 'r-1',
      'portal.attempts': 1,
    })
    expect(span.status.code).toBe(SpanStatusCode.UNSET)
    const points = await durationPoints()
    expect(points).toHaveLength(1)
    expect(points[0]?.value.count).toBe(1)
    expect(points[0]?.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': address,
      'server.port': port,
      'http.response.status_code': 200,
      'portal.rest.method': 'profile',
      'portal.member_id': rig.emulator.memberId,
    })
  })

  it("a portal error: the span's status is ERROR and error.type is the portal's code, on the span and the measurement", async () => {
    const result = await rig.portal.actions.v2.call.make({ unchecked: true, method: 'no.such.method' })
    expect(result.isSuccess).toBe(false)
    const span = onlySpan('POST no.such.method')
    expect(span.attributes['error.type']).toBe('ERROR_METHOD_NOT_FOUND')
    expect(span.attributes['http.response.status_code']).toBe(result.getStatus())
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'ERROR_METHOD_NOT_FOUND' })
    expect((await durationPoints())[0]?.attributes['error.type']).toBe('ERROR_METHOD_NOT_FOUND')
  })

  it('a call that times out: error.type REQUEST_TIMEOUT, no status code', async () => {
    rig.emulator.delayRequests(2_000, 1)
    await expect(
      rig.portal.actions.v2.call.make({ method: 'profile', timeout: 100, retryOnNetworkError: false }),
    ).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' })
    const span = onlySpan('POST profile')
    expect(span.attributes['error.type']).toBe('REQUEST_TIMEOUT')
    expect(span.attributes['http.response.status_code']).toBeUndefined()
    expect(span.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('a refresh: a span of its own naming the member id and the generations', async () => {
    await rig.portal.auth.refreshAuth()
    const span = onlySpan('portal-oauth refresh')
    expect(span.attributes).toEqual({
      'portal.member_id': rig.emulator.memberId,
      'portal.token.generation': 0,
      'portal.token.new_generation': 1,
    })
    expect(span.status.code).toBe(SpanStatusCode.UNSET)
  })

  it('a failed refresh: status ERROR with the OAuth code as error.type', async () => {
    rig.emulator.failOAuth({ error: 'invalid_grant' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'invalid_grant' })
    const span = onlySpan('portal-oauth refresh')
    expect(span.attributes['error.type']).toBe('invalid_grant')
    expect(span.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('a call made inside an active span becomes its child', async () => {
    const tracer = tracerProvider.getTracer('application')
    let parent: SpanContext | undefined
    await tracer.startActiveSpan('handle webhook', async (span) => {
      parent = span.spanContext()
      await rig.portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })
      span.end()
    })
    const child = onlySpan('POST tasks.task.get')
    expect(child.spanContext().traceId).toBe(parent?.traceId)
    expect(child.parentSpanContext?.spanId).toBe(parent?.spanId)
    expect(child.attributes['portal.rest.api_version']).toBe('v3')
  })

  it('no token, client secret or application token in any attribute, status or measurement', async () => {
    rig.emulator.expireAccessTokens()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    rig.emulator.failOAuth({ error: 'invalid_grant' })
    await rig.portal.auth.refreshAuth().catch(() => undefined)
    // The pair is dead now: the call rejects with the refresh's error.
    await rig.portal.actions.v2.call
      .make({ unchecked: true, method: 'no.such.method' })
      .catch(() => undefined)
    noteSecrets()
    expect(spans.getFinishedSpans().length).toBeGreaterThanOrEqual(3)
    const recorded = await everythingRecorded()
    for (const secret of secrets) expect(recorded).not.toContain(secret)
  })

  it('disable() stops the spans and measurements', async () => {
    instrumentation.disable()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(spans.getFinishedSpans()).toEqual([])
    expect(trace.getActiveSpan()).toBeUndefined()
  })
})
