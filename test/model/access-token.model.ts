import type { ActorLogic, SnapshotFrom } from 'xstate'
import { type StatePath, TestModel } from 'xstate/graph'
import {
  type AccessTokenEvent,
  type AccessTokenInput,
  type AccessTokenRefreshOutput,
  accessTokenMachine,
} from '../../machines/index.js'
import { replayPath } from './replay.js'

/** A snapshot of the access-token machine. */
export type TokenSnapshot = SnapshotFrom<typeof accessTokenMachine>

/** How a refresh fails in the model: the OAuth server answers `invalid_grant`, or a custom refresh function throws. */
export type RefreshFailure = 'invalid_grant' | 'custom'

/**
 * The events of the model: the machine's own events plus the done and error events of the invoked `refresh` actor,
 * which the graph tools do not run and which the tests turn into a refresh that succeeds or fails.
 */
export type TokenModelEvent =
  | AccessTokenEvent
  | { type: 'xstate.done.actor.refresh'; output: AccessTokenRefreshOutput }
  | { type: 'xstate.error.actor.refresh'; error: { failure: RefreshFailure } }

/** One generated path through the access-token machine. */
export type TokenPath = StatePath<TokenSnapshot, TokenModelEvent>

/** The state a test expects: the machine state, and for `refreshing` the state the refresh started from. */
export function tokenStateKey(snapshot: TokenSnapshot): string {
  const value = String(snapshot.value)
  return value === 'refreshing' ? `refreshing(from ${snapshot.context.refreshOrigin})` : value
}

/** A short name for an event in a test title. */
export function tokenEventLabel(event: TokenModelEvent | { type: 'xstate.init' }): string {
  switch (event.type) {
    case 'xstate.init':
      return 'new client'
    case 'clock.tick':
      return 'time passes beyond expires'
    case 'authData.requested':
      return 'getAuthData()'
    case 'token.rejected':
      return 'portal answers expired_token'
    case 'refresh.requested':
      return 'refreshAuth()'
    case 'xstate.done.actor.refresh':
      return 'refresh succeeds'
    case 'xstate.error.actor.refresh':
      return event.error.failure === 'custom' ? 'custom refresh throws' : 'OAuth server answers invalid_grant'
  }
}

function eventKey(event: TokenModelEvent | undefined): string {
  if (!event) return 'init'
  return event.type === 'xstate.error.actor.refresh' ? `${event.type}(${event.error.failure})` : event.type
}

/** The test model's start: a pair expiring at this Unix second. */
const INPUT: AccessTokenInput = { expires: 1_000_000 }

/** Every event the model may send in `snapshot`, kept only where the machine takes a transition. */
function tokenEvents(snapshot: TokenSnapshot): TokenModelEvent[] {
  const { context } = snapshot
  const pastExpiry = context.expires * 1000 + 1000
  const candidates: TokenModelEvent[] = [
    { type: 'clock.tick', now: pastExpiry },
    { type: 'authData.requested', now: pastExpiry },
    { type: 'token.rejected', generation: context.generation },
    { type: 'refresh.requested' },
    {
      type: 'xstate.done.actor.refresh',
      output: { expires: context.expires + 3600, generation: context.generation + 1 },
    },
    { type: 'xstate.error.actor.refresh', error: { failure: 'invalid_grant' } },
    { type: 'xstate.error.actor.refresh', error: { failure: 'custom' } },
  ]
  return candidates.filter((event) => snapshot.can(event as AccessTokenEvent))
}

/** The test model over the real exported machine (its refresh actor is never started by the graph tools). */
export function createTokenModel(): TestModel<TokenSnapshot, TokenModelEvent, AccessTokenInput> {
  const logic = accessTokenMachine as unknown as ActorLogic<TokenSnapshot, TokenModelEvent, AccessTokenInput>
  return new TestModel(logic, { input: INPUT, events: tokenEvents })
}

function replayed(paths: TokenPath[]): TokenPath[] {
  return paths.map((path) =>
    replayPath(path, {
      machine: accessTokenMachine,
      input: INPUT,
      events: tokenEvents,
      eventKey,
      stateKey: tokenStateKey,
    }),
  )
}

/**
 * Shortest paths over a graph whose vertices are transitions (`state --event--> state`): one path per transition
 * and refresh outcome, so every transition is reached by the shortest way to it.
 */
export function tokenShortestPaths(): TokenPath[] {
  return replayed(
    createTokenModel().getShortestPaths({
      serializeState: (snapshot, event, previous) =>
        `${previous ? tokenStateKey(previous) : ''} --${eventKey(event)}--> ${tokenStateKey(snapshot)}`,
    }),
  )
}

/**
 * Simple paths over a graph whose vertices are states before and after the first refresh outcome: every way
 * through the states that does not repeat one, including one loop back through a refresh that succeeded or failed.
 */
export function tokenSimplePaths(): TokenPath[] {
  return replayed(
    createTokenModel().getSimplePaths({
      serializeState: (snapshot) => {
        const settled = snapshot.context.refreshCount + snapshot.context.failureCount > 0
        return `${tokenStateKey(snapshot)} ${settled ? 'after a refresh outcome' : 'before any refresh outcome'}`
      },
    }),
  )
}

/** The title of a path's test. */
export function tokenPathTitle(path: TokenPath): string {
  return path.steps.map((step) => tokenEventLabel(step.event)).join(' → ')
}
