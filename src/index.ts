export { AbstractPortal, type AbstractPortalOptions, type TypePortal } from './abstract-portal.js'
export type { PortalActions, VersionActions } from './actions/actions.js'
export { CallAction } from './actions/call.js'
export { AuthOAuthManager, type InspectOption } from './auth/auth-oauth-manager.js'
export {
  AjaxError,
  type AjaxErrorRequestInfo,
  RefreshTokenError,
  SdkError,
  SdkErrorCode,
} from './errors/index.js'
export type { AuthStrategy, RequestAuth } from './http/auth-strategy.js'
export type { FetchLike, TypeHttpOptions } from './http/http-options.js'
export type { TypeHttp } from './http/rest-transport.js'
export { isReadMethod } from './http/retry-policy.js'
export { ParamsFactory } from './limits/params-factory.js'
export type {
  AdaptiveConfigParams,
  OperatingLimitParams,
  RateLimitParams,
  RestrictionParams,
  RestrictionParamsInput,
} from './limits/restriction-params.js'
export { createDefaultLogger, createNullLogger, type LoggerInterface } from './logger/logger.js'
export { PortalOAuth, type PortalOAuthOptions } from './portal-oauth.js'
export { type AjaxPayload, type AjaxQuery, AjaxResult, type PayloadTime } from './results/ajax-result.js'
export { Result, type ResultError } from './results/result.js'
export { type ClientSideRuntime, detectClientSideRuntime } from './runtime/client-side.js'
export { ApiVersion } from './types/api-version.js'
export { EnumAppStatus, type TypeEnumAppStatus } from './types/app-status.js'
export type {
  AuthActions,
  AuthData,
  CallbackRefreshAuth,
  CustomRefreshAuth,
  CustomRefreshContext,
  HandlerRefreshAuth,
  PortalOAuthParams,
  PortalOAuthSecret,
  RefreshAuthPayload,
} from './types/auth.js'
export type { CallOptions } from './types/call.js'
