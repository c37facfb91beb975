// The declarations name Node's own types (AbortSignal, URL, node:http): a TypeScript consumer needs @types/node (README.md, "TypeScript settings").
/// <reference types="node" preserve="true" />
/**
 * `portal-oauth/testing`: a loopback portal emulator (REST v2 + v3, batches, webhooks, limits) and its OAuth server,
 * for testing applications built on `portal-oauth` without a real portal. It answers every method of the catalogue
 * (the portal's REST documentation) generically; `defineMethod` replaces any answer.
 * @module
 */
export { startPortalEmulator } from './emulator.js'
export {
  type PortalEmulatorFarm,
  type PortalEmulatorFarmOptions,
  startPortalEmulators,
} from './emulator-farm.js'
export { EmulatorRestError, type EmulatorValidationItem } from './errors.js'
export type { EmulatorInstallEventName, EmulatorInstallEventOptions } from './install-events.js'
export { type EmulatorListNav, EmulatorListPage } from './list-page.js'
export {
  type PortalEmulatorProcess,
  type PortalEmulatorProcessOptions,
  startPortalEmulatorProcess,
} from './process.js'
export type {
  EmulatorApiVersion,
  EmulatorAppStatus,
  EmulatorAuthOverrides,
  EmulatorAuthParams,
  EmulatorAuthVia,
  EmulatorCurrentTokens,
  EmulatorDelayFilter,
  EmulatorDropFilter,
  EmulatorMethodContext,
  EmulatorMethodHandler,
  EmulatorMethodOptions,
  EmulatorOAuthFailure,
  EmulatorOperatingLimit,
  EmulatorRateLimit,
  EmulatorRequestKind,
  EmulatorServerName,
  EmulatorTokenFailure,
  EmulatorTokenPatch,
  EmulatorWebhookOptions,
  ListName,
  PortalEmulator,
  PortalEmulatorOptions,
  RequestLog,
  RequestLogEntry,
} from './types.js'
