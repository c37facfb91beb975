import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel'
import { inspect } from 'node:util'
import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { DiagnosticsChannel, type LoggerInterface, TracingChannelName } from '../../src/index.js'
import { instrumentPortalOAuth } from '../../src/otel.js'

/** The events of a tracing channel, as `diagnostics_channel.tracingChannel` names them. */
const TRACING_EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const

/** How deep {@link readEverything} follows what it reads. */
const MAX_DEPTH = 12

/**
 * Everything a reader could get out of `value`: `JSON.stringify`, `String()`, `util.inspect` (hidden properties and
 * getters shown), and then every own and inherited property, getters and `Symbol.toPrimitive` included, read again
 * and rendered the same way. What throws is skipped: a subscriber or an exporter would not see it either.
 */
export function readEverything(value: unknown): string {
  const out: string[] = []
  const seen = new Set<unknown>()
  const visit = (item: unknown, depth: number): void => {
    out.push(attempt(() => JSON.stringify(item)) ?? '')
    out.push(attempt(() => String(item)) ?? '')
    out.push(attempt(() => inspect(item, { depth: 6, showHidden: true, getters: true })) ?? '')
    if (item === null || (typeof item !== 'object' && typeof item !== 'function')) return
    if (seen.has(item) || depth > MAX_DEPTH) return
    seen.add(item)
    for (const key of keysOf(item)) {
      out.push(String(key))
      visit(
        attempt(() => Reflect.get(item, key)),
        depth + 1,
      )
    }
  }
  visit(value, 0)
  return out.join('\n')
}

/** Own keys of `value` and of every prototype up to `Object.prototype`, but `constructor`; none when a trap throws. */
function keysOf(value: object): PropertyKey[] {
  const keys: PropertyKey[] = []
  let current: object | null = value
  for (let level = 0; current !== null && current !== Object.prototype && level < 8; level += 1) {
    const layer: object = current
    // Not `constructor`: what a class holds on itself is the thrower's, not something the client gave out.
    keys.push(...(attempt(() => Reflect.ownKeys(layer)) ?? []).filter((key) => key !== 'constructor'))
    current = attempt((): object | null => Reflect.getPrototypeOf(layer)) ?? null
  }
  return keys
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** A logger that keeps every line. */
export interface CapturingLogger extends LoggerInterface {
  /** Every line so far: level, message, context. */
  readonly lines: Array<{ level: string; message: string; context?: Record<string, unknown> }>
}

/** A logger, passed as the `logger` option, that keeps every line it is given. */
export function capturingLogger(): CapturingLogger {
  const lines: CapturingLogger['lines'] = []
  const keep =
    (level: string) =>
    (message: string, context?: Record<string, unknown>): void => {
      lines.push(context === undefined ? { level, message } : { level, message, context })
    }
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') }
}

/**
 * A subscriber on every channel the package publishes on (the plain ones of `DiagnosticsChannel` and every event of
 * the tracing channels of `TracingChannelName`) and OpenTelemetry's in-memory exporters behind
 * `instrumentPortalOAuth()`. Each publication is read at once, as a subscriber reads it then.
 */
export class Observer {
  readonly #read: string[] = []
  readonly #stops: Array<() => void> = []
  /** Where the spans go. */
  readonly spans = new InMemorySpanExporter()
  readonly #tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: this.spans })],
  })
  readonly #metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  readonly #meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({ exporter: this.#metrics, exportIntervalMillis: 3_600_000 }),
    ],
  })
  readonly #contextManager = new AsyncLocalStorageContextManager()
  /** Publications seen, per channel name. */
  readonly counts = new Map<string, number>()

  constructor() {
    context.setGlobalContextManager(this.#contextManager.enable())
    const instrumentation = instrumentPortalOAuth({
      tracerProvider: this.#tracerProvider,
      meterProvider: this.#meterProvider,
    })
    this.#stops.push(() => instrumentation.disable())
    for (const name of Object.values(DiagnosticsChannel)) {
      const listener = (message: unknown): void => this.#keep(name, message)
      subscribe(name, listener)
      this.#stops.push(() => unsubscribe(name, listener))
    }
    for (const name of Object.values(TracingChannelName)) {
      const channel = tracingChannel<unknown, object>(name)
      const handlers = Object.fromEntries(
        TRACING_EVENTS.map((event) => [
          event,
          (message: object) => this.#keep(`tracing:${name}:${event}`, message),
        ]),
      ) as Record<(typeof TRACING_EVENTS)[number], (message: object) => void>
      channel.subscribe(handlers)
      this.#stops.push(() => channel.unsubscribe(handlers))
    }
  }

  #keep(name: string, message: unknown): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1)
    this.#read.push(readEverything(message))
  }

  /** Every publication, span and measurement so far, and every line of `logger`, read every way there is. */
  async everything(logger?: CapturingLogger): Promise<string> {
    await this.#meterProvider.forceFlush()
    const spans = this.spans.getFinishedSpans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      status: span.status,
      events: span.events,
    }))
    const metrics = this.#metrics.getMetrics()
    return [
      ...this.#read,
      readEverything(spans),
      readEverything(metrics),
      ...(logger?.lines.map((line) => readEverything(line)) ?? []),
    ].join('\n')
  }

  /** Forgets what was seen so far (spans included). */
  reset(): void {
    this.#read.length = 0
    this.counts.clear()
    this.spans.reset()
    this.#metrics.reset()
  }

  /** Unsubscribes and shuts the providers down. */
  async close(): Promise<void> {
    for (const stop of this.#stops.splice(0)) stop()
    context.disable()
    await this.#tracerProvider.shutdown()
    await this.#meterProvider.shutdown()
  }
}
