import { setTimeout as sleep } from 'node:timers/promises'
import type { Cluster, Redis } from 'ioredis'

/**
 * How changes of a pair are announced: `PUBLISH` on one server, sharded `SPUBLISH` on a cluster (Redis 7: the
 * message stays on the node that owns the portal's slot), or not at all (waiters poll).
 */
export type RedisAnnounce = 'PUBLISH' | 'SPUBLISH' | ''

/**
 * The waits of one `RedisStore` for changes of pairs: one subscriber connection (a duplicate of the client, opened
 * on the first wait, closed by {@link close}), a subscription per portal while someone waits on it. A wait also
 * ends after the poll interval: a change announced before the subscription took effect is never lost for longer,
 * and the store keeps working where pub/sub does not (a cluster whose client routes no sharded subscription).
 */
export class RedisChangeFeed {
  readonly #client: Redis | Cluster
  readonly #sharded: boolean
  readonly #pollMs: number
  readonly #waiters = new Map<string, Set<() => void>>()
  #subscriber: Redis | Cluster | null = null
  #closed = false

  constructor(client: Redis | Cluster, sharded: boolean, pollMs: number) {
    this.#client = client
    this.#sharded = sharded
    this.#pollMs = pollMs
  }

  /** Resolves on a message on `channel`, after `timeoutMs` or the poll interval, on abort, or on close. */
  async wait(channel: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || this.#closed) return
    const controller = new AbortController()
    const wake = (): void => controller.abort()
    let waiters = this.#waiters.get(channel)
    if (!waiters) {
      waiters = new Set()
      this.#waiters.set(channel, waiters)
      this.#subscribe(channel)
    }
    waiters.add(wake)
    signal?.addEventListener('abort', wake, { once: true })
    try {
      const ms = Math.max(0, Math.min(timeoutMs, this.#pollMs))
      await sleep(ms, undefined, { signal: controller.signal, ref: false }).catch(() => undefined)
    } finally {
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
    const subscriber = this.#subscriber
    this.#subscriber = null
    subscriber?.disconnect()
  }

  #connection(): Redis | Cluster {
    if (this.#subscriber) return this.#subscriber
    // A cluster routes sharded subscriptions to the node owning the slot only with sharded subscribers on.
    const subscriber = this.#sharded
      ? (this.#client as Cluster).duplicate([], { shardedSubscribers: true })
      : (this.#client as Redis).duplicate()
    // Failures of this connection only slow waits down to the poll interval; ioredis reconnects and resubscribes.
    subscriber.on('error', () => undefined)
    subscriber.on(this.#sharded ? 'smessage' : 'message', (channel: string) => {
      for (const wake of this.#waiters.get(channel) ?? []) wake()
    })
    this.#subscriber = subscriber
    return subscriber
  }

  #subscribe(channel: string): void {
    const connection = this.#connection()
    const done = this.#sharded ? connection.ssubscribe(channel) : connection.subscribe(channel)
    done.catch(() => undefined)
  }

  #unsubscribe(channel: string): void {
    const connection = this.#subscriber
    if (!connection || this.#closed) return
    const done = this.#sharded ? connection.sunsubscribe(channel) : connection.unsubscribe(channel)
    done.catch(() => undefined)
  }
}
