// The declarations name Node's own types (AbortSignal, URL, node:http): a TypeScript consumer needs @types/node (README.md, "TypeScript settings").
/// <reference types="node" preserve="true" />
export { AbstractPortal, type AbstractPortalOptions, type TypePortal } from './abstract-portal.js'
export { ActionErrorCode } from './actions/action-error-code.js'
export type {
  PortalActions,
  V2Actions,
  V2CallAction,
  V2ListOptions,
  V3Actions,
  V3CallAction,
  V3ListOptions,
  VersionActions,
} from './actions/actions.js'
export {
  type AjaxResults,
  type BareResults,
  BatchAction,
  BatchActionBase,
  BatchByChunkAction,
} from './actions/batch/batch-action.js'
export type {
  AjaxMode,
  BatchCall,
  BatchCallList,
  BatchCallObject,
  BatchCallRecord,
  BatchCalls,
  BatchCallTuple,
  BatchData,
  BatchDataOf,
  BatchListAjaxData,
  BatchListData,
  BatchMakeOptions,
  BatchOptions,
  BatchRecordAjaxData,
  BatchRecordData,
  CatalogueBatchCall,
  CatalogueBatchCallList,
  CatalogueBatchCallRecord,
  CheckedBatchMakeOptions,
  CommandData,
  UncheckedBatchMakeOptions,
} from './actions/batch/batch-types.js'
export { CallAction } from './actions/call.js'
export { CallListAction, FetchListAction, type ListBase } from './actions/list/list-actions.js'
export type {
  CatalogueListOptions,
  CatalogueTailOptions,
  ListCall,
  ListExtras,
  ListOptions,
  ListRow,
  ListRowOf,
  OptionalParamsListCall,
  RowsOf,
  TailCursor,
  TailExtras,
  TailMethods,
  TailOptions,
  TypedListOptions,
  UncheckedListOptions,
  UncheckedTailOptions,
  WrittenListOptions,
} from './actions/list/list-options.js'
export { ListPageError, type ListPageErrorOptions } from './actions/list/list-page-error.js'
export type { MethodArgs, MethodCallOptions, MethodsByName } from './actions/methods.js'
export { AuthOAuthManager } from './auth/auth-oauth-manager.js'
export type { AdminActor, MachineActorView, MachineSnapshotView, TokenActor } from './auth/machine-actors.js'
export type { ProfileCall, ProfileCallSource } from './auth/profile-call.js'
export type {
  CallResult,
  CatalogueCallOptions,
  CheckedOptions,
  DeprecatedCallOptions,
  DistributedCallOptions,
  DocumentedResult,
  MethodCall,
  MethodCheck,
  MethodIn,
  MethodNameOf,
  NoResultType,
  OptionalParamsCall,
  ParamsIn,
  ParamsOf,
  ReportedCallOptions,
  ReportedOptions,
  ResultOf,
  ResultTypeGiven,
  UncheckedCallOptions,
} from './catalogue/call-types.js'
export type {
  CheckedCalls,
  CheckedCommand,
  CheckedCommands,
  CommandFor,
  GivenAs,
  GivenObject,
  KeysOf,
  MethodCommand,
  MethodOf,
  MethodOptions,
  MethodsOf,
  MethodTuple,
  ParamsSlot,
  RefParams,
  RequiredKeys,
  V2BatchRef,
  V3BatchRef,
  WithRefs,
} from './catalogue/command-types.js'
export type { Flag, Id, NoParams, NumericId, Obj } from './catalogue/doc-types.js'
export type { V2Method, V3Method } from './catalogue/method-names.js'
export type {
  CrmItemAddParams,
  CrmItemImportParams,
  CrmItemUpdateParams,
  V2CallMake,
  V2DeprecatedMethod,
  V2ListCall,
  V2MethodCall,
  V2MethodParams,
  V3CallMake,
  V3DeprecatedMethod,
  V3ListCall,
  V3MethodCall,
  V3MethodParams,
} from './catalogue/method-types.generated.js'
/** The documented result shapes that several methods share, by name (`CatalogDocumentAddResult`, ...). */
export type * as CatalogueResultShapes from './catalogue/result-types.generated.js'
export type { V2MethodResults, V3MethodResults } from './catalogue/result-types.generated.js'
export {
  type CallEndMessage,
  type CallErrorMessage,
  type CallOutcome,
  type CallStartMessage,
  type CallTraceContext,
  DiagnosticsChannel,
  type DiagnosticsErrorInfo,
  type LimiterWaitMessage,
  type RefreshEndMessage,
  type RefreshErrorMessage,
  type RefreshStartMessage,
  type RefreshTraceContext,
  TracingChannelName,
} from './diagnostics/channels.js'
export {
  AjaxError,
  type AjaxErrorOptions,
  type AjaxErrorRequestInfo,
  type ErrorCode,
  RefreshTokenError,
  type RefreshTokenErrorOptions,
  SdkError,
  SdkErrorCode,
  type SdkErrorOptions,
} from './errors/index.js'
export type { EventTree } from './fleet/event-body.js'
export {
  type AuthorizationCodeExchange,
  DEFAULT_SERVER_ENDPOINT,
  exchangeAuthorizationCode,
} from './fleet/exchange-code.js'
export { DEFAULT_IDLE_TIMEOUT_MS, type PortalFleetOptions } from './fleet/fleet-options.js'
export { type FleetEventResult, PortalFleet } from './fleet/portal-fleet.js'
export type { AuthStrategy, RequestAuth } from './http/auth-strategy.js'
export type { FetchLike, TypeHttpOptions } from './http/http-options.js'
export type { CallExtras, TypeHttp } from './http/rest-transport.js'
export { isReadMethod } from './http/retry-policy.js'
export {
  type InspectedContext,
  type InspectedEventObject,
  type InspectorRedactionOptions,
  type RedactionAllowList,
  redactingInspectorOptions,
} from './inspect/redacting-inspector-options.js'
export { ParamsFactory } from './limits/params-factory.js'
export type {
  AdaptiveConfigParams,
  OperatingLimitParams,
  RateLimitParams,
  RestrictionParams,
  RestrictionParamsInput,
} from './limits/restriction-params.js'
export { createDefaultLogger, createNullLogger, type LoggerInterface } from './logger/logger.js'
export type { StructuredLogFn, StructuredLogger, SupportedLogger } from './logger/structured-logger.js'
export { PortalHook, type PortalHookOptions } from './portal-hook.js'
export { PortalOAuth, type PortalOAuthOptions } from './portal-oauth.js'
export { type AjaxPayload, type AjaxQuery, AjaxResult, type PayloadTime } from './results/ajax-result.js'
export { Result, type ResultError } from './results/result.js'
export { type ClientSideRuntime, detectClientSideRuntime } from './runtime/client-side.js'
export { MemoryStore } from './store/memory-store.js'
export type { StoreHealth, StoreHealthState } from './store/store-health.js'
export type {
  DeadPairReason,
  SharedBucketSettings,
  SlotAnswer,
  SpendingMark,
  TokenStore,
} from './store/token-store.js'
export {
  type HealthCheckOptions,
  HealthCheckTool,
  PingTool,
  type PortalTools,
  type ToolOptions,
} from './tools/tools.js'
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
  PortalOAuthSecretInput,
  RefreshAuthPayload,
} from './types/auth.js'
export type { CallOptions } from './types/call.js'
export type { PortalHookParams } from './types/hook.js'
export type {
  InspectCallback,
  InspectedActorRef,
  InspectedEvent,
  InspectedSnapshot,
  InspectionEventBase,
  InspectionEventOf,
  InspectObserver,
  InspectOption,
  PortalInspectionEvent,
} from './types/inspect-option.js'
export type { XStateTypeOr, XStateTypes } from './types/xstate-types.js'
