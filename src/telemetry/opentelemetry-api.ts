/**
 * `@opentelemetry/api`, loaded when `portal-oauth/otel` is: an optional peer dependency, so a missing one must say
 * which package to install instead of Node's bare `ERR_MODULE_NOT_FOUND`. A static import would fail before any
 * code of this package runs; a synchronous `require` keeps `portal-oauth/otel` free of top-level await, so that
 * `require('portal-oauth/otel')` still works. Its CommonJS build shares the API's global registry (tracer, meter and
 * context manager) with the ES build an application imports.
 */
import { createRequire } from 'node:module'
import type * as OpenTelemetryApi from '@opentelemetry/api'

/** The package `portal-oauth/otel` needs. */
export const OPENTELEMETRY_API_PACKAGE = '@opentelemetry/api'

/** Whether `error` is Node's "cannot find" of `name` itself (not of a file inside an installed package). */
function isMissing(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`)
}

function loadOpenTelemetryApi(): typeof OpenTelemetryApi {
  try {
    return createRequire(import.meta.url)(OPENTELEMETRY_API_PACKAGE) as typeof OpenTelemetryApi
  } catch (error) {
    if (!isMissing(error, OPENTELEMETRY_API_PACKAGE)) throw error
    throw new Error(
      `portal-oauth/otel needs ${OPENTELEMETRY_API_PACKAGE}, an optional peer dependency that is not installed: ` +
        `npm install ${OPENTELEMETRY_API_PACKAGE} (the version your OpenTelemetry SDK asks for, see docs/telemetry.md)`,
      { cause: error },
    )
  }
}

/** The parts of the API the instrumentation uses. */
export const { context, metrics, trace, SpanKind, SpanStatusCode } = loadOpenTelemetryApi()
