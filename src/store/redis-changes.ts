import type { ChangeSubscriptions, RedisConnection } from './redis-connection.js'

/**
 * How changes of a pair are announced: `PUBLISH` on one server, sharded `SPUBLISH` on a cluster (Redis 7: the
 * message stays on the node that owns the portal's slot), or not at all (waiters poll).
 */
export type RedisAnnounce = 'PUBLISH' | 'SPUBLISH' | ''

/**
 * The waits of one `RedisStore` for changes of pairs: subscriptions opened on the first wait (a connection of their
 * own, closed by {@link close}), one per portal while someone waits on it. A wait also
 * ends after the poll interval: a change announced before the subscription took effect is never lost for longer,
 * and the store keeps working where pub/sub does not (a cluster whose client routes no sharded subscription).
 */
export class RedisChangeFeed {
  readonly #connection: RedisConnection
  readonly #pollMs: number
  readonly #waiters = new Map<string, Set<() => void>>()
  #subscriptions: ChangeSubscriptions | null = null
  #closed = false

  constructor(connection: RedisConnection, pollMs: number) {
    this.#connection = connection
    this.#pollMs = pollMs
  }

  /** Resolves on a message on `channel`, after `timeoutMs` or the poll interval, on abort, or on close. */
  async wait(channel: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || this.#closed) return
    // A bare promise and timer: an AbortController would make two errors with their stacks at each wake.
    let wake: () => void = () => undefined
    const woken = new Promise<void>((resolve) => {
      wake = resolve
    })
    let waiters = this.#waiters.get(channel)
    if (!waiters) {
      waiters = new Set()
      this.#waiters.set(channel, waiters)
      this.#subscribe(channel)
    }
    waiters.add(wake)
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the finally below removes the listener however the wait ends
    signal?.addEventListener('abort', wake, { once: true })
    const timer = setTimeout(wake, Math.max(0, Math.min(timeoutMs, this.#pollMs)))
    // Stryker disable next-line OptionalChaining: Node's timers have unref; other runtimes' may not
    timer.unref?.()
    try {
      await woken
    } finally {
      // Stryker disable next-line CallExpression: a timer left would only wake a wait already over, later
      clearTimeout(timer)
      signal?.removeEventListener('abort', wake)
      waiters.delete(wake)
      if (waiters.size === 0 && this.#waiters.get(channel) === waiters) {
        this.#waiters.delete(channel)
        this.#unsubscribe(channel)
      }
    }
  }

  /** Ends every wait and closes the subscriber connection. */
  async close(): Promise<void> {
    this.#closed = true
    for (const waiters of this.#waiters.values()) for (const wake of waiters) wake()
    this.#waiters.clear()
    const subscriptions = this.#subscriptions
    this.#subscriptions = null
    subscriptions?.close()
  }

  #subscribe(channel: string): void {
    this.#subscriptions ??= this.#connection.subscriptions((changed) => {
      for (const wake of this.#waiters.get(changed) ?? []) wake()
    })
    // A failed subscription only slows waits down to the poll interval.
    this.#subscriptions.subscribe(channel).catch(() => undefined)
  }

  #unsubscribe(channel: string): void {
    if (this.#closed) return
    this.#subscriptions?.unsubscribe(channel).catch(() => undefined)
  }
}
