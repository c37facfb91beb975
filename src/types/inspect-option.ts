// What XState passes an `inspect` observer: XState's own `InspectionEvent` once `portal-oauth/machines` is imported,
// otherwise a description of it without XState (see xstate-types.ts for why), a supertype that XState's events and
// observers fit as they are.
import type { XStateTypeOr } from './xstate-types.js'

/** An actor as an inspection event names it (XState's `ActorRefLike`). */
export interface InspectedActorRef {
  /** The actor's session id, unique in the actor system. */
  readonly sessionId: string
  /** The actor's current snapshot. */
  getSnapshot(): unknown
}

/** A snapshot as an inspection event carries it (XState's `Snapshot<unknown>`; a machine's also has `value`, `context`). */
export interface InspectedSnapshot {
  /** `active`, `done`, `error` or `stopped`. */
  readonly status: string
}

/** An event as an inspection event carries it. */
export interface InspectedEvent {
  /** The event's name. */
  readonly type: string
}

/** What every inspection event has. */
export interface InspectionEventBase {
  /** The session id of the root actor. */
  readonly rootId: string
  /** The actor the event is about. */
  readonly actorRef: InspectedActorRef
}

/** XState's `InspectionEvent`: an actor was created, an event sent, a snapshot taken, a microstep or an action run. */
export type PortalInspectionEvent =
  | (InspectionEventBase & {
      /** An actor was created. */
      readonly type: '@xstate.actor'
    })
  | (InspectionEventBase & {
      /** An event was sent to `actorRef`. */
      readonly type: '@xstate.event'
      /** The event. */
      readonly event: InspectedEvent
      /** Who sent it, if an actor did. */
      readonly sourceRef: InspectedActorRef | undefined
    })
  | (InspectionEventBase & {
      /** A new snapshot, a transition or a microstep. */
      readonly type: '@xstate.snapshot' | '@xstate.transition' | '@xstate.microstep'
      /** The event that caused it. */
      readonly event: InspectedEvent
      /** The new snapshot. */
      readonly snapshot: InspectedSnapshot
    })
  | (InspectionEventBase & {
      /** An action ran. */
      readonly type: '@xstate.action'
      /** The action. */
      readonly action: {
        /** The action's name. */
        readonly type: string
        /** Its parameters. */
        readonly params: unknown
      }
    })

/** The events an `inspect` observer receives: XState's `InspectionEvent` once `portal-oauth/machines` is imported. */
export type InspectionEventOf = XStateTypeOr<'inspectionEvent', PortalInspectionEvent>

/** An observer of inspection events (XState's `Observer<InspectionEvent>`, a Stately inspector's `inspect`). */
export interface InspectObserver {
  /** Receives each inspection event. */
  next?(event: InspectionEventOf): void
  /** Receives an error of the inspected system. */
  error?(error: unknown): void
  /** Called when the inspected system is done. */
  complete?(): void
}

/**
 * A function receiving each inspection event. Declared as a method so that a function typed for XState's own
 * `InspectionEvent` (a subtype of {@link PortalInspectionEvent}) fits too.
 */
export type InspectCallback = {
  /** The callback. */
  inspect(event: InspectionEventOf): void
}['inspect']

/** An `inspect` observer as XState's `createActor` takes it (for example a Stately inspector's `inspect`). */
export type InspectOption = InspectObserver | InspectCallback
