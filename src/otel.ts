// The declarations name Node's own types (AbortSignal, URL, node:http): a TypeScript consumer needs @types/node (README.md, "TypeScript settings").
/// <reference types="node" preserve="true" />
/**
 * `portal-oauth/otel`: OpenTelemetry spans and the `http.client.request.duration` histogram for every REST call and
 * token refresh, from the package's tracing channels. Needs `@opentelemetry/api` (an optional peer dependency);
 * `portal-oauth` itself never loads it.
 * @module
 */
export {
  instrumentPortalOAuth,
  type PortalOAuthInstrumentation,
  type PortalOAuthInstrumentationOptions,
} from './telemetry/open-telemetry.js'
