import type { ChangeSubscriptions, RedisConnection } from './redis-connection.js'

/**
 * How changes of a pair are announced: `PUBLISH` on one server, sharded `SPUBLISH` on a cluster (Redis 7: the
 * message stays on the node that owns the portal's slot), or not at all (waiters poll).
 */
export type RedisAnnounce = 'PUBLISH' | 'SPUBLISH' | ''

/** The waits on one channel, and its subscription. */
interface ChannelWaits {
  readonly waiters: Set<() => void>
  /** Ends the subscription once nobody waited on the channel for a poll interval; `null` while someone waits. */
  linger: NodeJS.Timeout | null
}

/**
 * The waits of one `RedisStore` for changes of pairs: subscriptions opened on the first wait (a connection of their
 * own, closed by {@link close}), one per portal while someone waits on it and for a poll interval after. A change
 * announced before a subscription took effect is not heard, so the waits that began before Redis confirmed it end
 * then, and their callers look again: such a change costs a round trip, not a poll interval. A wait also ends after
 * the poll interval, so the store keeps working where pub/sub does not (a cluster whose client routes no sharded
 * subscription). The subscription outlives its last wait by a poll interval so that a caller who looks again and
 * waits once more finds it confirmed, rather than subscribing (and being woken) anew each time.
 */
export class RedisChangeFeed {
  readonly #connection: RedisConnection
  readonly #pollMs: number
  readonly #channels = new Map<string, ChannelWaits>()
  #subscriptions: ChangeSubscriptions | null = null
  #closed = false

  constructor(connection: RedisConnection, pollMs: number) {
    this.#connection = connection
    this.#pollMs = pollMs
  }

  /**
   * Resolves on a message on `channel`, once a subscription this wait began before is confirmed, after `timeoutMs` or
   * the poll interval, on abort, or on close.
   */
  async wait(channel: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || this.#closed) return
    // A bare promise and timer: an AbortController would make two errors with their stacks at each wake.
    let wake: () => void = () => undefined
    const woken = new Promise<void>((resolve) => {
      wake = resolve
    })
    let waits = this.#channels.get(channel)
    if (!waits) {
      waits = { waiters: new Set(), linger: null }
      this.#channels.set(channel, waits)
      this.#subscribe(channel, waits)
    } else if (waits.linger !== null) {
      clearTimeout(waits.linger)
      waits.linger = null
    }
    waits.waiters.add(wake)
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
      waits.waiters.delete(wake)
      if (waits.waiters.size === 0 && this.#channels.get(channel) === waits) this.#linger(channel, waits)
    }
  }

  /** Ends every wait and closes the subscriber connection. */
  async close(): Promise<void> {
    this.#closed = true
    for (const waits of this.#channels.values()) {
      if (waits.linger !== null) clearTimeout(waits.linger)
      for (const wake of waits.waiters) wake()
    }
    this.#channels.clear()
    const subscriptions = this.#subscriptions
    this.#subscriptions = null
    subscriptions?.close()
  }

  #subscribe(channel: string, waits: ChannelWaits): void {
    this.#subscriptions ??= this.#connection.subscriptions((changed) => {
      for (const wake of this.#channels.get(changed)?.waiters ?? []) wake()
    })
    this.#subscriptions.subscribe(channel).then(
      // Whoever waits began before the subscription took effect, and may have missed the change: look again.
      () => {
        for (const wake of waits.waiters) wake()
      },
      // A failed subscription only slows waits down to the poll interval.
      () => undefined,
    )
  }

  /** Keeps the channel's subscription for a poll interval after its last wait, then ends it. */
  #linger(channel: string, waits: ChannelWaits): void {
    if (this.#closed) return
    waits.linger = setTimeout(() => {
      if (waits.waiters.size > 0 || this.#channels.get(channel) !== waits) return
      this.#channels.delete(channel)
      this.#unsubscribe(channel)
    }, this.#pollMs)
    // Stryker disable next-line OptionalChaining: Node's timers have unref; other runtimes' may not
    waits.linger.unref?.()
  }

  #unsubscribe(channel: string): void {
    if (this.#closed) return
    this.#subscriptions?.unsubscribe(channel).catch(() => undefined)
  }
}
