import type { ActorLogic, SnapshotFrom } from 'xstate'
import { type StatePath, TestModel } from 'xstate/graph'
import { type AdminFlagEvent, adminFlagMachine } from '../../machines/index.js'
import { replayPath } from './replay.js'

/** A snapshot of the admin-flag machine. */
export type AdminSnapshot = SnapshotFrom<typeof adminFlagMachine>

/**
 * The events of the model: `init.requested` plus the done (with the `ADMIN` flag `profile` answers) and error events
 * of the invoked `loadIsAdmin` actor, which the tests turn into a `profile` answer.
 */
export type AdminModelEvent =
  | AdminFlagEvent
  | { type: 'xstate.done.actor.loadIsAdmin'; output: boolean }
  | { type: 'xstate.error.actor.loadIsAdmin'; error: { failure: 'profile' } }

/** One generated path through the admin-flag machine. */
export type AdminPath = StatePath<AdminSnapshot, AdminModelEvent>

/** The state a test expects, with the cached flag. */
export function adminStateKey(snapshot: AdminSnapshot): string {
  return `${String(snapshot.value)}[isAdmin=${String(snapshot.context.isAdmin)}]`
}

/** A short name for an event in a test title. */
export function adminEventLabel(event: AdminModelEvent | { type: 'xstate.init' }): string {
  switch (event.type) {
    case 'xstate.init':
      return 'new client'
    case 'init.requested':
      return 'initIsAdmin()'
    case 'xstate.done.actor.loadIsAdmin':
      return `profile answers ADMIN=${String(event.output)}`
    case 'xstate.error.actor.loadIsAdmin':
      return 'profile answers an error'
  }
}

function eventKey(event: AdminModelEvent | undefined): string {
  if (!event) return 'init'
  return event.type === 'xstate.done.actor.loadIsAdmin'
    ? `${event.type}(${String(event.output)})`
    : event.type
}

/** Every event the model may send in `snapshot`, kept only where the machine takes a transition. */
function adminEvents(snapshot: AdminSnapshot): AdminModelEvent[] {
  const candidates: AdminModelEvent[] = [
    { type: 'init.requested' },
    { type: 'xstate.done.actor.loadIsAdmin', output: true },
    { type: 'xstate.done.actor.loadIsAdmin', output: false },
    { type: 'xstate.error.actor.loadIsAdmin', error: { failure: 'profile' } },
  ]
  return candidates.filter((event) => snapshot.can(event as AdminFlagEvent))
}

/** The test model over the real exported machine (its `loadIsAdmin` actor is never started by the graph tools). */
export function createAdminModel(): TestModel<AdminSnapshot, AdminModelEvent, undefined> {
  const logic = adminFlagMachine as unknown as ActorLogic<AdminSnapshot, AdminModelEvent, undefined>
  return new TestModel(logic, { events: adminEvents })
}

function replayed(paths: AdminPath[]): AdminPath[] {
  return paths.map((path) =>
    replayPath(path, { machine: adminFlagMachine, events: adminEvents, eventKey, stateKey: adminStateKey }),
  )
}

/** Shortest paths over a graph whose vertices are transitions: one path per transition and `profile` answer. */
export function adminShortestPaths(): AdminPath[] {
  return replayed(
    createAdminModel().getShortestPaths({
      serializeState: (snapshot, event, previous) =>
        `${previous ? adminStateKey(previous) : ''} --${eventKey(event)}--> ${adminStateKey(snapshot)}`,
    }),
  )
}

/** Simple paths over states with their cached flag, told apart by whether a `profile` call just failed. */
export function adminSimplePaths(): AdminPath[] {
  return replayed(
    createAdminModel().getSimplePaths({
      serializeState: (snapshot, event) =>
        `${adminStateKey(snapshot)}${event?.type === 'xstate.error.actor.loadIsAdmin' ? ' after a failure' : ''}`,
    }),
  )
}

/** The title of a path's test. */
export function adminPathTitle(path: AdminPath): string {
  return path.steps.map((step) => adminEventLabel(step.event)).join(' → ')
}
