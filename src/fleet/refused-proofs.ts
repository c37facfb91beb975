/**
 * Proofs an OAuth server refused lately, by key (an origin and a hash: no token is kept), so that an event repeated
 * within `ttlMs` is refused again without a request. Bounded: past `size` keys the least recently used goes first,
 * so that a flood of distinct tokens costs at most `size` entries (a key and a message each, a few hundred bytes).
 * Only refusals are kept: a proof that succeeded is never remembered, each event is proved afresh.
 */
export class RefusedProofs {
  readonly #ttlMs: number
  readonly #size: number
  readonly #now: () => number
  /** Key → when it is forgotten and the refusal's message; a `Map` iterates in insertion order, oldest first. */
  readonly #entries = new Map<string, { until: number; message: string }>()

  constructor(options: { ttlMs: number; size: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs
    this.#size = options.size
    this.#now = options.now ?? Date.now
  }

  /** The message of the refusal remembered for `key`, or `undefined`; a hit makes the key the most recently used. */
  get(key: string): string | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    if (entry.until <= this.#now()) return undefined
    this.#entries.set(key, entry)
    return entry.message
  }

  /** Remembers that the proof of `key` was refused with `message`. */
  add(key: string, message: string): void {
    this.#entries.delete(key)
    this.#entries.set(key, { until: this.#now() + this.#ttlMs, message })
    if (this.#entries.size <= this.#size) return
    const oldest = this.#entries.keys().next()
    if (!oldest.done) this.#entries.delete(oldest.value)
  }
}
