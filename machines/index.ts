export {
  type AccessTokenContext,
  type AccessTokenEvent,
  type AccessTokenInput,
  type AccessTokenRefreshOutput,
  type AccessTokenState,
  accessTokenMachine,
  REFRESH_ACTOR_ID,
} from './access-token.machine.js'
export {
  type AdminFlagContext,
  type AdminFlagEvent,
  type AdminFlagState,
  adminFlagMachine,
  LOAD_IS_ADMIN_ACTOR_ID,
} from './admin-flag.machine.js'
