import type { ActorLogic, SnapshotFrom } from 'xstate'
import { type StatePath, TestModel } from 'xstate/graph'
import {
  type AccessTokenEvent,
  type AccessTokenInput,
  type AccessTokenRefreshOutput,
  type AccessTokenSettings,
  type AccessTokenState,
  accessTokenMachine,
  DEFAULT_ACCESS_TOKEN_SETTINGS,
  type RefreshFailure,
} from '../../machines/index.js'
import { replayPath } from './replay.js'

/** A snapshot of the access-token machine. */
export type TokenSnapshot = SnapshotFrom<typeof accessTokenMachine>

/**
 * How a refresh attempt fails in the model: the OAuth server answers `invalid_grant` (the pair is dead), a 500
 * `server_error` (transient), or a custom refresh function throws (failed).
 */
export type RefreshFailureVariant = 'invalid_grant' | 'server_error' | 'custom'

/** The delayed events of the machine, named as XState names them: `xstate.after.<delay>.<state node id>`. */
export const AFTER_REFRESH_TIMEOUT = 'xstate.after.refreshTimeout.accessToken.refreshing.requesting'
/** The backoff before the next attempt is over. */
export const AFTER_RETRY_DELAY = 'xstate.after.retryDelay.accessToken.refreshing.waitingToRetry'
/** The refresh callback did not settle in time. */
export const AFTER_CALLBACK_TIMEOUT = 'xstate.after.callbackTimeout.accessToken.refreshing.persisting'

/**
 * The events of the model: the machine's own events, the done and error events of its two invoked actors (the
 * refresh attempt and the callback), which the graph tools do not run, and its delayed events. The tests turn each
 * into what makes the real client take it.
 */
export type TokenModelEvent =
  | AccessTokenEvent
  | { type: 'xstate.done.actor.refresh'; output: AccessTokenRefreshOutput }
  | { type: 'xstate.error.actor.refresh'; error: RefreshFailure & { variant: RefreshFailureVariant } }
  | { type: 'xstate.done.actor.persist' }
  | { type: 'xstate.error.actor.persist'; error: Error }
  | { type: typeof AFTER_REFRESH_TIMEOUT }
  | { type: typeof AFTER_RETRY_DELAY }
  | { type: typeof AFTER_CALLBACK_TIMEOUT }

/** One generated path through the access-token machine. */
export type TokenPath = StatePath<TokenSnapshot, TokenModelEvent>

/**
 * The settings of the model, which the clients of the paths use too (so both take the same guarded branches): one
 * retry, and timeouts long enough for a path to look at the client while it waits, on a busy machine.
 */
export const MODEL_SETTINGS: AccessTokenSettings = {
  ...DEFAULT_ACCESS_TOKEN_SETTINGS,
  refreshRetries: 1,
  eagerRefreshMs: 60_000,
  refreshTimeoutMs: 1_200,
  callbackTimeoutMs: 800,
  retryBaseDelayMs: 600,
  retryMaxDelayMs: 9_600,
}

/** The top-level state of a snapshot, as `portal.tokenState` reports it. */
export function topState(snapshot: TokenSnapshot): AccessTokenState {
  const value = snapshot.value
  return (typeof value === 'string' ? value : Object.keys(value)[0]) as AccessTokenState
}

/** The substate of `refreshing`, or undefined outside it. */
export function refreshStep(
  snapshot: TokenSnapshot,
): 'requesting' | 'waitingToRetry' | 'persisting' | undefined {
  const value = snapshot.value
  return typeof value === 'string' ? undefined : (Object.values(value)[0] as 'requesting')
}

/** The state a test expects: the state, inside `refreshing` its step, origin and attempt, and whether closing. */
export function tokenStateKey(snapshot: TokenSnapshot): string {
  const { context } = snapshot
  const step = refreshStep(snapshot)
  const key = step
    ? `refreshing.${step}(from ${context.refreshOrigin}${context.background ? ' in the background' : ''}, attempt ${context.attempt})`
    : topState(snapshot)
  return withFlags(snapshot, key)
}

/** `key` with the flags that change what the machine may do next: a failed background refresh, closing. */
function withFlags(snapshot: TokenSnapshot, key: string): string {
  const { context } = snapshot
  const flags = [
    context.backgroundFailed ? 'background refresh failed' : '',
    context.closing ? 'closing' : '',
  ]
  return [key, ...flags.filter(Boolean)].join(', ')
}

const FAILURE_LABELS: Record<RefreshFailureVariant, string> = {
  invalid_grant: 'OAuth server answers invalid_grant',
  server_error: 'OAuth server answers 500 server_error',
  custom: 'custom refresh throws',
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
    case 'pair.replaced':
      return 'setAuthOptions(new pair)'
    case 'client.closing':
      return 'destroy()'
    case 'xstate.done.actor.refresh':
      return event.output.fromStore ? 'another instance refreshed (store)' : 'OAuth server answers a new pair'
    case 'xstate.error.actor.refresh':
      return FAILURE_LABELS[event.error.variant]
    case 'xstate.done.actor.persist':
      return 'callback persists'
    case 'xstate.error.actor.persist':
      return 'callback throws'
    case AFTER_REFRESH_TIMEOUT:
      return 'refresh attempt times out'
    case AFTER_RETRY_DELAY:
      return 'backoff over, next attempt'
    case AFTER_CALLBACK_TIMEOUT:
      return 'callback times out'
  }
}

function eventKey(event: TokenModelEvent | undefined): string {
  if (!event) return 'init'
  if (event.type === 'xstate.error.actor.refresh') return `${event.type}(${event.error.variant})`
  if (event.type === 'xstate.done.actor.refresh' && event.output.fromStore) return `${event.type}(store)`
  return event.type
}

/** The test model's start: a pair expiring at this Unix second, with the model's settings. */
const INPUT: AccessTokenInput = { expires: 1_000_000, settings: MODEL_SETTINGS }

function failure(variant: RefreshFailureVariant): TokenModelEvent {
  const kind = variant === 'invalid_grant' ? 'dead' : variant === 'server_error' ? 'transient' : 'failed'
  return { type: 'xstate.error.actor.refresh', error: { kind, error: null, variant } }
}

/** Every event the model may send in `snapshot`, kept only where the machine takes a transition. */
function tokenEvents(snapshot: TokenSnapshot): TokenModelEvent[] {
  const { context } = snapshot
  // A destroyed client takes no further event.
  if (context.closing) return []
  const top = topState(snapshot)
  const pastExpiry = context.expires * 1000 + 1000
  // Inside the eager margin, before expiry: only `valid` reacts to it (by refreshing in the background).
  const inMargin = context.expires * 1000 - MODEL_SETTINGS.eagerRefreshMs / 2
  const candidates: TokenModelEvent[] = [
    { type: 'clock.tick', now: pastExpiry },
    { type: 'authData.requested', now: top === 'valid' ? inMargin : pastExpiry },
    { type: 'token.rejected', generation: context.generation },
    { type: 'refresh.requested' },
    { type: 'pair.replaced', expires: context.expires + 7200 },
    { type: 'xstate.done.actor.refresh', output: { expires: context.expires + 3600 } },
    { type: 'xstate.done.actor.refresh', output: { expires: context.expires + 3600, fromStore: true } },
    failure('invalid_grant'),
    failure('server_error'),
    failure('custom'),
    { type: AFTER_REFRESH_TIMEOUT },
    { type: AFTER_RETRY_DELAY },
    { type: 'xstate.done.actor.persist' },
    { type: 'xstate.error.actor.persist', error: new Error('callback failed') },
    { type: AFTER_CALLBACK_TIMEOUT },
  ]
  // `destroy()` is planned where it changes the state: during the backoff between two attempts.
  if (refreshStep(snapshot) === 'waitingToRetry') candidates.push({ type: 'client.closing' })
  return candidates.filter((event) => snapshot.can(event as AccessTokenEvent))
}

/**
 * The events of the simple paths: the user's and the clock's, a refresh that succeeds and is persisted or that kills
 * the pair, and `setAuthOptions()` bringing a dead client back. The other outcomes (retries, timeouts, the store, a
 * custom refresh, a failing or hanging callback, `destroy()`) are left to the shortest paths, which reach each of
 * their transitions; with them the simple paths would number in the thousands.
 */
function simplePathEvents(snapshot: TokenSnapshot): TokenModelEvent[] {
  const left: string[] = [
    AFTER_REFRESH_TIMEOUT,
    AFTER_RETRY_DELAY,
    AFTER_CALLBACK_TIMEOUT,
    'xstate.error.actor.persist',
    'client.closing',
  ]
  return tokenEvents(snapshot).filter((event) => {
    if (event.type === 'xstate.error.actor.refresh') return event.error.variant === 'invalid_grant'
    if (event.type === 'xstate.done.actor.refresh') return !event.output.fromStore
    if (event.type === 'pair.replaced') return topState(snapshot) === 'dead'
    return !left.includes(event.type)
  })
}

type EventsOf = (snapshot: TokenSnapshot) => TokenModelEvent[]

/** The test model over the real exported machine (its invoked actors are never started by the graph tools). */
export function createTokenModel(
  events: EventsOf = tokenEvents,
): TestModel<TokenSnapshot, TokenModelEvent, AccessTokenInput> {
  const logic = accessTokenMachine as unknown as ActorLogic<TokenSnapshot, TokenModelEvent, AccessTokenInput>
  return new TestModel(logic, { input: INPUT, events })
}

function replayed(paths: TokenPath[], events: EventsOf = tokenEvents): TokenPath[] {
  return paths.map((path) =>
    replayPath(path, {
      machine: accessTokenMachine,
      input: INPUT,
      events,
      eventKey,
      stateKey: tokenStateKey,
    }),
  )
}

/**
 * Shortest paths over a graph whose vertices are transitions (`state --event--> state`): one path per transition
 * and outcome, so every transition is reached by the shortest way to it.
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
 * through the states with the events of {@link simplePathEvents} that does not repeat one.
 */
export function tokenSimplePaths(): TokenPath[] {
  return replayed(
    createTokenModel(simplePathEvents).getSimplePaths({
      serializeState: (snapshot) => {
        const settled = snapshot.context.refreshCount + snapshot.context.failureCount > 0
        return `${tokenStateKey(snapshot)} ${settled ? 'after a refresh outcome' : 'before any refresh outcome'}`
      },
    }),
    simplePathEvents,
  )
}

/** The title of a path's test. */
export function tokenPathTitle(path: TokenPath): string {
  return path.steps.map((step) => tokenEventLabel(step.event)).join(' → ')
}
