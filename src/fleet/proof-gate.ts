import { createHash } from 'node:crypto'
import type Bottleneck from 'bottleneck'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'
import { loadBottleneck } from '../limits/load-bottleneck.js'
import { RefusedProofs } from './refused-proofs.js'

/**
 * Strangers' proofs in flight at once per OAuth server, at most. With the default pool of 32 connections per origin
 * (`httpOptions.connections`) half the connections to the OAuth server stay free for the proofs of installed portals
 * and for their clients' refreshes; a smaller pool gets half of its connections (see {@link strangerProofsAtOnce}).
 * At 200 ms a proof, 16 at a time prove 80 strangers a second: more installs of new portals than an application
 * sees, and as many `app.info` requests as a flood can make the application send.
 */
export const STRANGER_PROOFS_AT_ONCE = 16

/**
 * Strangers' events waiting for a proof per OAuth server, at most; the next is refused at once. 256 waiting behind
 * 16 in flight wait at most 16 proofs' time (3.2 s at 200 ms): an event is answered within the portal's patience or
 * refused at once, never left to time out.
 */
export const STRANGER_PROOFS_WAITING = 256

/**
 * Events of one installed portal that carry its stored application token (known), waiting for a proof behind the one
 * in flight, at most; the next is refused at once. Such events are proved one at a time per portal: the application
 * token is no secret to the portal's users (any user of the application's page reads it), so a user who sends made-up
 * events with it holds at most one of the connections to the OAuth server, and delays only their own portal's events,
 * by at most 9 proofs. A portal sends its install and update events one at a time: 8 is plenty for genuine ones.
 */
export const KNOWN_PROOFS_WAITING = 8

/** How long a proof the OAuth server refused is remembered, ms: 60 s, repeats within it are refused unsent. */
export const REFUSAL_TTL_MS = 60_000

/** Refused proofs remembered at most (the least recently used go first): 4 096, a megabyte or two at worst. */
export const REFUSALS_KEPT = 4096

/** Strangers' proofs at once for a pool of `connections` per origin: half of them, at most 16, at least 1. */
export function strangerProofsAtOnce(connections: number): number {
  return Math.max(1, Math.min(STRANGER_PROOFS_AT_ONCE, Math.floor(connections / 2)))
}

/** What the gate needs to know of an event's proof. */
export interface ProofTicket {
  /** The OAuth server's origin: strangers' proofs are bounded per server. */
  server: string
  /** The event's member id, for messages. */
  memberId: string
  /**
   * Whether the event is of an installed portal and carries its stored application token: such events have a lane
   * of their own per portal, one proof at a time, which strangers' proofs do not hold up.
   */
  known: boolean
  /**
   * Everything the proof's verdict depends on: the access token and each event field the proof compares with what
   * the OAuth server says. Two events with equal fields share one proof in flight and one remembered refusal; only
   * their hash is kept.
   */
  about: readonly string[]
  /** Sends the proof's requests. */
  fetch: FetchLike
}

/** Limits of a {@link ProofGate}. */
export interface ProofGateOptions {
  /** Strangers' proofs in flight at once per OAuth server. */
  atOnce: number
  /** Strangers' events waiting per OAuth server. */
  waiting: number
  /** Known events of one portal waiting behind its proof in flight. */
  knownWaiting: number
  /** How long a refusal is remembered, ms. */
  refusalTtlMs: number
  /** How many refusals are remembered at most. */
  refusalsKept: number
  /**
   * Told when a lane starts refusing events (`shed` 0) and, once it drained, how many it refused: the strangers' lane
   * of `server`, or the known lane of portal `memberId` there.
   */
  onShed?: (server: string, shed: number, memberId?: string) => void
}

/** The strangers' lane of one OAuth server, or the known lane of one portal. */
interface Lane {
  /** The strangers' lane's limiter; `null` in a known portal's lane, which is {@link tail}. */
  limiter: Promise<Bottleneck> | null
  /**
   * A known portal's lane: what its next proof waits for, one at a time. A chain, as the portal's own queue is, not a
   * limiter: bottleneck admits a job after several timer turns, which a flood's busy event loop stretched to
   * hundreds of ms in front of a genuine event (`npm run bench:proof-flood`: up to 2.8x one proof, against 1.0x).
   */
  tail: Promise<unknown>
  /** Proofs in flight at once. */
  atOnce: number
  /** Events waiting behind them. */
  waiting: number
  /** Events let into the limiter and not settled yet: at most `atOnce + waiting`. */
  admitted: number
  /** Events refused since the lane was last empty. */
  shed: number
}

function keyOf(ticket: ProofTicket): string {
  // Stryker disable next-line StringLiteral: the digest's encoding does not change which keys are equal
  const digest = createHash('sha256').update(JSON.stringify(ticket.about), 'utf8').digest('base64url')
  return `${ticket.server} ${digest}`
}

function notProved(memberId: string, why: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.EventNotProved,
    message: `handleEvent: portal ${memberId}: ${why}; nothing was changed`,
  })
}

/**
 * A fetch that notes whether an answer came, and whether the server failed (a 5xx or 429, or no answer): a refusal
 * is remembered only when the server answered and did not fail, so a proof refused because the server was down or
 * busy is asked again next time.
 */
function watched(fetch: FetchLike): { fetch: FetchLike; answered: () => boolean; failed: () => boolean } {
  let answered = false
  let failed = false
  return {
    fetch: async (input, init) => {
      try {
        const response = await fetch(input, init)
        answered = true
        if (response.status >= 500 || response.status === 429) failed = true
        return response
      } catch (error) {
        failed = true
        throw error
      }
    },
    answered: () => answered,
    failed: () => failed,
  }
}

/**
 * Runs the proofs of install and update events (docs/fleet.md, "Floods"): strangers' proofs at most `atOnce` at a
 * time per OAuth server in a bottleneck limiter, at most `waiting` more queued, the rest refused at once; the events
 * of a known portal beside them, in a lane of the portal's own, one at a time, `knownWaiting` more queued; events
 * with equal fields in one lane share one proof in flight; a refusal of the OAuth server is remembered
 * `refusalTtlMs`. A proof that succeeded is never reused.
 */
export class ProofGate<T> {
  readonly #options: ProofGateOptions
  readonly #refused: RefusedProofs
  /** Proofs in flight or waiting, by lane kind and key. */
  readonly #shared = new Map<string, Promise<T>>()
  /** The strangers' lane of each OAuth server (kept), and the known lane of each portal with events (while it has). */
  readonly #lanes = new Map<string, Lane>()
  #closed = false
  /** Resolves when the gate closes: events waiting in a known portal's lane are refused then, not after its proof. */
  readonly #closing: Promise<void>
  #close: () => void = () => undefined

  constructor(options: ProofGateOptions) {
    this.#closing = new Promise<void>((resolve) => {
      this.#close = resolve
    })
    this.#options = options
    this.#refused = new RefusedProofs({ ttlMs: options.refusalTtlMs, size: options.refusalsKept })
  }

  /**
   * The proof's outcome, `proof` run with a fetch that watches its answers, or a refusal without running it:
   * `JSSDK_EVENT_NOT_PROVED` when an equal event was refused lately or too many strangers' events are waiting, and
   * `JSSDK_CLIENT_DESTROYED` once the gate was closed.
   */
  prove(ticket: ProofTicket, proof: (fetch: FetchLike) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(destroyed())
    const key = keyOf(ticket)
    const refusal = this.#refused.get(key)
    if (refusal !== undefined)
      return Promise.reject(new SdkError({ code: SdkErrorCode.EventNotProved, message: refusal }))
    // A known event never shares a stranger's proof: that one may still wait in the strangers' lane.
    const sharedKey = `${ticket.known ? 'known' : 'stranger'} ${key}`
    const shared = this.#shared.get(sharedKey)
    if (shared) return shared
    const laneKey = ticket.known ? `${ticket.server} ${ticket.memberId}` : ticket.server
    const lane = this.#lane(laneKey, ticket.known)
    if (lane.admitted >= lane.atOnce + lane.waiting) {
      if (lane.shed === 0) this.#shed(ticket, 0)
      lane.shed += 1
      const whose = ticket.known ? 'events of this portal' : 'unproved events'
      return Promise.reject(
        notProved(
          ticket.memberId,
          `not checked: too many ${whose} are waiting for the OAuth server (${lane.atOnce} checked at a time, ${lane.waiting} waiting)`,
        ),
      )
    }
    lane.admitted += 1
    const run = this.#inLane(lane, laneKey, key, ticket, proof)
    this.#shared.set(sharedKey, run)
    void run.then(
      () => this.#shared.delete(sharedKey),
      () => this.#shared.delete(sharedKey),
    )
    return run
  }

  /** Refuses every event from now on and drops the events waiting; proofs in flight finish. */
  close(): void {
    this.#closed = true
    this.#close()
    for (const lane of this.#lanes.values())
      void lane.limiter?.then((limiter) => limiter.stop({ dropWaitingJobs: true }))
  }

  async #inLane(
    lane: Lane,
    laneKey: string,
    key: string,
    ticket: ProofTicket,
    proof: (fetch: FetchLike) => Promise<T>,
  ): Promise<T> {
    const run = (): Promise<T> => (this.#closed ? Promise.reject(destroyed()) : this.#run(key, ticket, proof))
    if (!lane.limiter) {
      // Set before anything is awaited: the lane's events run in the order they were let in.
      const turn = Promise.race([lane.tail, this.#closing]).then(run)
      lane.tail = turn.catch(() => undefined)
      try {
        return await turn
      } finally {
        this.#leave(lane, laneKey, ticket)
      }
    }
    try {
      const limiter = await lane.limiter
      return await limiter.schedule(run)
    } catch (error) {
      // bottleneck's own refusals: dropped by stop() (closed), or past its highWater (a backstop: `admitted` keeps
      // the queue below it, as bottleneck counts a job only after several timer turns).
      const Limiter = await loadBottleneck()
      if (!(error instanceof Limiter.BottleneckError)) throw error
      if (this.#closed) throw destroyed()
      throw notProved(
        ticket.memberId,
        'not checked: too many unproved events are waiting for the OAuth server',
      )
    } finally {
      this.#leave(lane, laneKey, ticket)
    }
  }

  /** An event left its lane (proved, refused or dropped). */
  #leave(lane: Lane, laneKey: string, ticket: ProofTicket): void {
    lane.admitted -= 1
    if (lane.admitted !== 0) return
    if (lane.shed > 0) this.#shed(ticket, lane.shed)
    lane.shed = 0
    // A portal's lane goes with its last event: a flood of portals' events leaves no lane behind.
    if (ticket.known && this.#lanes.get(laneKey) === lane) this.#lanes.delete(laneKey)
  }

  async #run(key: string, ticket: ProofTicket, proof: (fetch: FetchLike) => Promise<T>): Promise<T> {
    const watch = watched(ticket.fetch)
    try {
      return await proof(watch.fetch)
    } catch (error) {
      if (
        error instanceof SdkError &&
        error.code === SdkErrorCode.EventNotProved &&
        watch.answered() &&
        !watch.failed()
      )
        this.#refused.add(key, error.message)
      throw error
    }
  }

  #shed(ticket: ProofTicket, shed: number): void {
    if (ticket.known) this.#options.onShed?.(ticket.server, shed, ticket.memberId)
    else this.#options.onShed?.(ticket.server, shed)
  }

  #lane(laneKey: string, known: boolean): Lane {
    let lane = this.#lanes.get(laneKey)
    if (!lane) {
      const atOnce = known ? 1 : this.#options.atOnce
      const waiting = known ? this.#options.knownWaiting : this.#options.waiting
      lane = {
        limiter: known
          ? null
          : loadBottleneck().then(
              (Limiter) =>
                // OVERFLOW: past highWater the newcomer is dropped, not the oldest waiting (LEAK): an event let in is
                // proved, and one refused is refused at once, while its sender still waits for the answer.
                new Limiter({
                  maxConcurrent: atOnce,
                  highWater: waiting,
                  strategy: Limiter.strategy.OVERFLOW,
                }),
            ),
        tail: Promise.resolve(),
        atOnce,
        waiting,
        admitted: 0,
        shed: 0,
      }
      this.#lanes.set(laneKey, lane)
    }
    return lane
  }
}

function destroyed(): SdkError {
  return new SdkError({
    code: SdkErrorCode.Destroyed,
    message: 'PortalFleet was destroyed; create a new one',
  })
}
