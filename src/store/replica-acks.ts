import type { LoggerInterface } from '../logger/logger.js'

/**
 * How long a `WAIT` lasts once the replicas fell short, ms: a replica that came back acknowledges within it, and one
 * still missing does not cost each refresh half the command timeout twice over (the lock and the save).
 */
export const SHORT_WAIT_MS = 100

/**
 * How late a `WAIT` may answer after its timeout, ms: a server at the default `hz 10` checks the timeouts of blocked
 * clients ten times a second, so a `WAIT` of 50 ms can answer after 150 ms.
 */
export const WAIT_LATENESS_MS = 100

/**
 * The longest `WAIT` that still answers within `commandTimeoutMs`: half of it, and no more than leaves room for the
 * server's lateness ({@link WAIT_LATENESS_MS}) and the round trip; 1 ms at least (`WAIT` with 0 never times out).
 */
export function fullWaitMs(commandTimeoutMs: number): number {
  const roomForLateness = commandTimeoutMs - WAIT_LATENESS_MS - 50
  return Math.max(1, Math.min(Math.floor(commandTimeoutMs / 2), roomForLateness))
}

/** Sends a command to the master of the portal's keys; the answer or a rejection, within the command timeout. */
export type MasterCommand = (args: string[]) => Promise<unknown>

/**
 * The replicas' acknowledgement of the store's writes (`WAIT`): the refresh lock and a saved pair reach the
 * replicas before anyone relies on them, so that a failover promotes a replica that knows them. When fewer than
 * `replicas` acknowledge in time (the master has no replica in sync: after a failover, until the old master comes
 * back as a replica), the write goes on without them: refusing it would stop every refresh for as long, and calls
 * fail on expired tokens. The store says so once, naming how many replicas the master has, and waits only
 * {@link SHORT_WAIT_MS} from then on, until the replicas acknowledge again.
 */
export class ReplicaAcks {
  readonly #replicas: number
  /** The first `WAIT` of a healthy group: {@link fullWaitMs}, so that its answer (how many) is read. */
  readonly #fullWaitMs: number
  readonly #logger: LoggerInterface
  /** Fewer replicas than asked acknowledged the last write: warned, and waited for briefly. */
  #short = false

  constructor(replicas: number, commandTimeoutMs: number, logger: LoggerInterface) {
    this.#replicas = replicas
    this.#fullWaitMs = fullWaitMs(commandTimeoutMs)
    this.#logger = logger
  }

  /** Whether the replicas fell short of the last write (and have not acknowledged one since). */
  get short(): boolean {
    return this.#short
  }

  /** Waits until the replicas hold the writes `what` made on `master`'s connection, or goes on without them. */
  async after(what: string, master: MasterCommand): Promise<void> {
    if (this.#replicas === 0) return
    const waitMs = this.#short ? Math.min(SHORT_WAIT_MS, this.#fullWaitMs) : this.#fullWaitMs
    const answer = await master(['WAIT', String(this.#replicas), String(waitMs)])
    const acknowledged = typeof answer === 'number' ? answer : 0
    if (acknowledged >= this.#replicas) {
      if (this.#short) {
        this.#short = false
        this.#logger.info(
          `RedisStore: ${acknowledged} replica(s) acknowledge the writes again (options.replicas: ${this.#replicas})`,
        )
      }
      return
    }
    if (this.#short) return
    this.#short = true
    const connected = await connectedReplicas(master)
    this.#logger.warn(
      `RedisStore ${what}: ${acknowledged} of ${this.#replicas} replica(s) acknowledged the write within ${waitMs} ms (options.replicas); the master has ${connected} replica(s) connected. Going on without them: refreshes go on, but a failover before the replicas catch up can lose the refresh lock or the saved pair. Said once until they acknowledge again; meanwhile each write waits for them ${Math.min(SHORT_WAIT_MS, this.#fullWaitMs)} ms at most.`,
      { acknowledged, replicas: this.#replicas, connected },
    )
  }
}

/** How many replicas the master reports (`ROLE`), or `'an unknown number of'` when it does not say. */
async function connectedReplicas(master: MasterCommand): Promise<number | string> {
  const unknown = 'an unknown number of'
  const role = await master(['ROLE']).catch(() => null)
  if (!Array.isArray(role) || role[0] !== 'master') return unknown
  return Array.isArray(role[2]) ? role[2].length : unknown
}
