import type { Actor, InspectionEvent } from 'xstate'
import type { ProvidedTokenMachine } from './access-token.machine.js'
import type { adminFlagMachine } from './admin-flag.machine.js'

export { accessTokenMachine } from './access-token.machine.js'
export {
  type AccessTokenContext,
  type AccessTokenEvent,
  type AccessTokenInput,
  type AccessTokenRefreshOutput,
  type AccessTokenSettings,
  type AccessTokenState,
  type CallbackFailure,
  DEFAULT_ACCESS_TOKEN_SETTINGS,
  PERSIST_ACTOR_ID,
  REFRESH_ACTOR_ID,
  type RefreshFailure,
} from './access-token.types.js'
export { adminFlagMachine } from './admin-flag.machine.js'
export {
  type AdminFlagContext,
  type AdminFlagEvent,
  type AdminFlagState,
  LOAD_IS_ADMIN_ACTOR_ID,
} from './admin-flag.types.js'
export { storeHealthMachine } from './store-health.machine.js'
export {
  PROBE_ACTOR_ID,
  type StoreHealthContext,
  type StoreHealthEvent,
  type StoreHealthInput,
  type StoreHealthState,
} from './store-health.types.js'

// With this entry imported, the main entry's types that touch XState are XState's own (src/types/xstate-types.ts).
declare module '../src/types/xstate-types.js' {
  interface XStateTypes {
    /** `auth.tokenActor`. */
    readonly tokenActor: Actor<ProvidedTokenMachine>
    /** `auth.adminActor`. */
    readonly adminActor: Actor<typeof adminFlagMachine>
    /** What an `inspect` observer receives. */
    readonly inspectionEvent: InspectionEvent
  }
}
