import { type Actor, type ActorScope, createActor, fromPromise, type SnapshotFrom } from 'xstate'
import {
  ACCESS_TOKEN_INITIAL_STATE,
  accessTokenMachine,
  initialAccessTokenContext,
  type ProvidedTokenMachine,
} from '../../machines/access-token.machine.js'
import type {
  AccessTokenEvent,
  AccessTokenRefreshOutput,
  AccessTokenSettings,
  AccessTokenState,
} from '../../machines/access-token.types.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { InspectOption } from '../types/inspect-option.js'

/** A snapshot of the access-token machine. */
export type TokenSnapshot = SnapshotFrom<typeof accessTokenMachine>

export type { ProvidedTokenMachine } from '../../machines/access-token.machine.js'

/** The top-level state of `snapshot` (`refreshing` for any of its sub-states). */
export function topState(snapshot: TokenSnapshot): AccessTokenState {
  const value = snapshot.value
  return (typeof value === 'string' ? value : Object.keys(value)[0]) as AccessTokenState
}

/** What the machine runs and says for one instance. */
export interface TokenMachineParts {
  /** One refresh attempt; rejects with a `RefreshFailure`. */
  refresh(signal: AbortSignal): Promise<AccessTokenRefreshOutput>
  /** Runs the refresh callback with the pair just committed. */
  persist(): Promise<void>
  /** Where the timeouts are logged. */
  logger: LoggerInterface
  /** The timeouts named in those lines. */
  settings: AccessTokenSettings
}

/** The system of XState actors an actor runs in: every actor created by `createActor` has its own. */
type ActorSystem = Actor<ProvidedTokenMachine>['system']

/** The parts of each running actor, by its actor system. */
const partsBySystem = new WeakMap<ActorSystem, TokenMachineParts>()

function partsOf(system: ActorSystem): TokenMachineParts {
  const parts = partsBySystem.get(system)
  // Stryker disable next-line all: every actor of the shared machine is created by TokenMachine, which sets its parts
  if (!parts) throw new Error('token machine: an actor runs without its parts')
  return parts
}

/**
 * The access-token machine with the refresh and persist actors and the timeout log lines of whichever client runs it,
 * found through the actor's system. Built once: `provide()` builds every state node of the machine anew, and an
 * instance would otherwise do it at each refresh (its actor is let go between refreshes).
 */
const sharedTokenMachine: ProvidedTokenMachine = accessTokenMachine.provide({
  actors: {
    refreshTokens: fromPromise<AccessTokenRefreshOutput>(({ signal, system }) =>
      partsOf(system).refresh(signal),
    ),
    persistPair: fromPromise<void>(({ system }) => partsOf(system).persist()),
  },
  actions: {
    reportRefreshTimeout: ({ system }) => {
      const { logger, settings } = partsOf(system)
      logger.error(
        `token refresh: no answer within ${settings.refreshTimeoutMs} ms; the attempt is abandoned`,
      )
    },
    reportCallbackTimeout: ({ system }) => {
      const { logger, settings } = partsOf(system)
      logger.error(
        `refresh callback did not settle within ${settings.callbackTimeoutMs} ms; the new token pair is kept in memory but may not be persisted`,
      )
    },
  },
})

/** Events that never start anything while the machine is idle: computed without an actor. */
const PURE_EVENTS: ReadonlySet<AccessTokenEvent['type']> = new Set(['clock.tick', 'pair.replaced'])

/** The input `snapshot` was made from: an actor restored from it needs one, though the snapshot sets the context. */
function inputOf(snapshot: TokenSnapshot): { expires: number; settings: AccessTokenSettings } {
  return { expires: snapshot.context.expires, settings: snapshot.context.settings }
}

/** The scope of the idle machines' pure transitions, made on first use. */
let pureScope: ActorScope<TokenSnapshot, AccessTokenEvent> | null = null

/**
 * The next idle snapshot: what XState's `transition()` computes, through one scope for every instance. `transition()`
 * builds a throwaway actor per call, and that actor computes the machine's initial snapshot from no input (a thrown
 * and caught TypeError), at each expiry of each portal a fleet holds (scripts/load/refresh-wave.ts). A pure event
 * starts nothing and runs no action of its own, so the scope's actor is never started and its actions are dropped, as
 * they were. Mutants that build the scope anew or from other values survive: they change what a tick costs, not what
 * it computes (test/machines/idle-snapshot.test.ts checks that).
 */
function pureTransition(snapshot: TokenSnapshot, event: AccessTokenEvent): TokenSnapshot {
  // Stryker disable next-line ConditionalExpression: see above
  if (!pureScope) {
    // Stryker disable next-line ObjectLiteral: see above
    const self = createActor(accessTokenMachine, { snapshot, input: inputOf(snapshot) })
    // Stryker disable StringLiteral: see above
    pureScope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => undefined,
      defer: () => undefined,
      emit: () => undefined,
      stopChild: () => undefined,
      actionExecutor: () => undefined,
    }
    // Stryker restore StringLiteral
  }
  return accessTokenMachine.transition(snapshot, event, pureScope)
}

/**
 * The access-token machine of one instance, the only owner of its token state (expiry, generation, the refresh in
 * flight and how the last one ended). An idle instance holds a snapshot computed with XState's pure transitions, no
 * actor: ticks of the clock and replaced pairs move it there. The first event that may start something creates the
 * actor from that snapshot; once the refresh is over the actor is stopped and its snapshot kept as the idle one (an
 * actor and its provided machine weigh some 30 KB, held by every portal of a fleet an hour after its first refresh),
 * unless someone outside holds it (`auth.tokenActor`, an inspector).
 */
export class TokenMachine {
  /** The machine's input until its initial snapshot is first read (computed then: an unused instance holds none). */
  #input: { expires: number; settings: AccessTokenSettings } | null
  #idle: TokenSnapshot | null = null
  #actor: Actor<ProvidedTokenMachine> | null = null
  readonly #parts: TokenMachineParts
  readonly #inspect: InspectOption | undefined
  /** Whether the actor is kept once started: it was handed out, or an inspector watches it. */
  #kept: boolean
  /** The look, a task later, at whether the actor may go (see {@link #release}). */
  #releasing: NodeJS.Timeout | null = null

  /** `parts` are what the client's actor runs and logs, once there is one. */
  constructor(
    expires: number,
    settings: AccessTokenSettings,
    parts: TokenMachineParts,
    inspect: InspectOption | undefined,
  ) {
    this.#input = { expires, settings }
    this.#parts = parts
    this.#inspect = inspect
    this.#kept = inspect !== undefined
    // An inspector sees the machine from the start.
    if (inspect) this.actor()
  }

  /** The current snapshot, of the actor or of the idle machine. */
  snapshot(): TokenSnapshot {
    return this.#actor ? this.#actor.getSnapshot() : this.#idleSnapshot()
  }

  /** The idle machine's snapshot, its initial one computed from the input on first use. */
  #idleSnapshot(): TokenSnapshot {
    if (this.#input) {
      // What `initialTransition` gives (the initial state runs nothing), at a twentieth of its cost: a fleet computes
      // this once per portal it takes up.
      this.#idle = accessTokenMachine.resolveState({
        value: ACCESS_TOKEN_INITIAL_STATE,
        context: initialAccessTokenContext(this.#input),
      })
      this.#input = null
    }
    return this.#idle as TokenSnapshot
  }

  /** The top-level state now. */
  state(): AccessTokenState {
    return topState(this.snapshot())
  }

  /** Whether an actor runs (something was started, and has not ended yet). */
  get started(): boolean {
    return this.#actor !== null
  }

  /** Sends `event`: to the actor once there is one; while idle, a tick or a replaced pair is computed in place. */
  send(event: AccessTokenEvent): void {
    // Stryker disable next-line ConditionalExpression,BlockStatement: an actor computes the same snapshot, at a higher cost
    if (!this.#actor && PURE_EVENTS.has(event.type)) {
      this.#idle = pureTransition(this.#idleSnapshot(), event)
      return
    }
    this.actor().send(event)
  }

  /** The running actor for a reader outside (`auth.tokenActor`): kept from now on, so that subscribing to it works. */
  keptActor(): Actor<ProvidedTokenMachine> {
    this.#kept = true
    return this.actor()
  }

  /** The running actor, created from the idle snapshot on first use. */
  actor(): Actor<ProvidedTokenMachine> {
    if (this.#actor) return this.#actor
    const snapshot = this.#idleSnapshot()
    const actor = createActor(sharedTokenMachine, {
      snapshot,
      input: inputOf(snapshot),
      ...(this.#inspect ? { inspect: this.#inspect } : {}),
    })
    // Before start(): the first thing the actor runs may be its refresh.
    partsBySystem.set(actor.system, this.#parts)
    this.#actor = actor
    this.#idle = null
    actor.subscribe((next) => {
      if (topState(next) !== 'refreshing') this.#releaseSoon()
    })
    actor.start()
    return actor
  }

  /** Stops the actor, if any; its last snapshot stays readable. */
  stop(): void {
    if (this.#releasing) clearTimeout(this.#releasing)
    this.#releasing = null
    this.#actor?.stop()
  }

  /**
   * Looks a task later (every waiter of this snapshot has heard of it by then) whether the actor may go back to an
   * idle snapshot: see {@link #release}.
   */
  #releaseSoon(): void {
    if (this.#kept || this.#releasing) return
    this.#releasing = setTimeout(() => {
      this.#releasing = null
      this.#release()
    }, 0)
    this.#releasing.unref?.()
  }

  /**
   * Stops an actor at rest (`valid` or `expired`: nothing invoked, no delay running, its last refresh a success) that
   * nobody outside holds, keeping its state as the idle snapshot of the bare machine, which holds neither it nor its
   * provided parts.
   */
  #release(): void {
    const actor = this.#actor
    if (!actor || this.#kept) return
    const snapshot = actor.getSnapshot()
    const { context } = snapshot
    const state = topState(snapshot)
    if (snapshot.status !== 'active' || state === 'refreshing' || state === 'dead' || context.closing) return
    // A failure kept in the context holds what was thrown (anything at all): restoring an actor from it would walk
    // it. A success clears both; until then the actor stays.
    if (context.lastFailure !== null || context.callbackFailure !== null) return
    this.#idle = accessTokenMachine.resolveState({ value: snapshot.value, context: snapshot.context })
    this.#actor = null
    actor.stop()
  }
}
