// The types of `auth.tokenActor` and `auth.adminActor`: XState's `Actor`s once `portal-oauth/machines` is imported,
// otherwise what they offer (see ../types/xstate-types.ts for why).
import type { AccessTokenContext } from '../../machines/access-token.types.js'
import type { AdminFlagContext } from '../../machines/admin-flag.types.js'
import type { XStateTypeOr } from '../types/xstate-types.js'

/** A snapshot of a machine actor. */
export interface MachineSnapshotView<Context> {
  /** The state: a top state's name, or `{ refreshing: 'requesting' }` for a nested one. */
  readonly value: string | { readonly [state: string]: unknown }
  /** The machine's context. */
  readonly context: Context
  /** `active` while the actor runs, `stopped` after. */
  readonly status: string
  /** Whether the snapshot is in `state` (a name, or a nested state value such as `{ refreshing: 'requesting' }`). */
  matches(state: string | { readonly [state: string]: unknown }): boolean
}

/** A running machine actor, as far as reading it goes. */
export interface MachineActorView<Context> {
  /** The actor's session id (inspection events name it). */
  readonly sessionId: string
  /** The current snapshot. */
  getSnapshot(): MachineSnapshotView<Context>
  /** Calls `listener` with every new snapshot until unsubscribed. */
  subscribe(listener: (snapshot: MachineSnapshotView<Context>) => void): {
    /** Stops the calls. */
    unsubscribe(): void
  }
}

/** The type of `auth.tokenActor`: XState's `Actor` once `portal-oauth/machines` is imported. */
export type TokenActor = XStateTypeOr<'tokenActor', MachineActorView<AccessTokenContext>>

/** The type of `auth.adminActor`: XState's `Actor` once `portal-oauth/machines` is imported. */
export type AdminActor = XStateTypeOr<'adminActor', MachineActorView<AdminFlagContext>>
