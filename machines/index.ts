export {
  type AccessTokenContext,
  type AccessTokenEvent,
  type AccessTokenInput,
  type AccessTokenRefreshOutput,
  type AccessTokenSettings,
  type AccessTokenState,
  accessTokenMachine,
  type CallbackFailure,
  DEFAULT_ACCESS_TOKEN_SETTINGS,
  PERSIST_ACTOR_ID,
  REFRESH_ACTOR_ID,
  type RefreshFailure,
} from './access-token.machine.js'
export {
  type AdminFlagContext,
  type AdminFlagEvent,
  type AdminFlagState,
  adminFlagMachine,
  LOAD_IS_ADMIN_ACTOR_ID,
} from './admin-flag.machine.js'
