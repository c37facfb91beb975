import { MIN_SECRET_LENGTH, PreparedSecrets } from '../errors/redact-secrets.js'
import { readThrown, type ThrownSnapshot } from '../errors/thrown-snapshot.js'
import type { SecretRedactor } from '../errors/to-error.js'

/** Old tokens stay secrets after a rotation; keep enough of them to cover late log lines. */
const MAX_OLD_SECRETS = 32

/** What a WeakMap can hold: objects and functions. */
function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

function isSecretCandidate(value: string | undefined): value is string {
  return value !== undefined && value.length >= MIN_SECRET_LENGTH
}

/**
 * Remembers the secret values of one instance and removes them from text and from what is read of thrown values. The
 * client secret, the application token, a webhook secret and the current pair are never forgotten; the pairs of older
 * generations are kept up to a bound.
 */
export class SecretRegistry {
  /** Never evicted: client secret, application token, webhook secret. */
  readonly #pinned = new Set<string>()
  /** The current access and refresh token; never evicted while current. */
  #current: string[] = []
  /** Tokens of older generations, newest last. */
  readonly #old: string[] = []
  /**
   * Thrown values read already, by object. Made at the first read: every client of a fleet holds a registry, and most
   * never read a failure.
   */
  #snapshots: WeakMap<object, ThrownSnapshot> | null = null
  readonly #knownSnapshot = (value: object): ThrownSnapshot | undefined => this.#snapshots?.get(value)

  /** Adds a secret that is kept for the instance's life; empty or very short values are ignored. */
  pin(value: string | undefined): void {
    if (isSecretCandidate(value)) this.#pinned.add(value)
  }

  /** Makes a pair current; the previous current pair joins the older generations (the newest 32 tokens are kept). */
  setCurrentPair(accessToken: string, refreshToken: string): void {
    for (const previous of this.#current) this.add(previous)
    // A literal of two when both count (the usual case): `filter` leaves room for 17 in every client.
    this.#current =
      isSecretCandidate(accessToken) && isSecretCandidate(refreshToken)
        ? [accessToken, refreshToken]
        : [accessToken, refreshToken].filter(isSecretCandidate)
  }

  /** Adds a secret of an older generation; empty or very short values are ignored. */
  add(value: string | undefined): void {
    if (!isSecretCandidate(value) || this.#old.includes(value)) return
    this.#old.push(value)
    if (this.#old.length > MAX_OLD_SECRETS) this.#old.shift()
  }

  /**
   * `text` with every known secret replaced by `[redacted]`, in each form `redactSecrets` finds (any letter case,
   * percent-encoded, JSON-escaped, base64 and base64url at any offset), and every value labelled with a secret's name.
   */
  redactText(text: string): string {
    return new PreparedSecrets(this.#all()).redactText(text)
  }

  /**
   * A redactor for one operation: these secrets besides the registry's, forgotten with it (the registry does not
   * keep them). A fleet redacts the tokens of the event or pair at hand this way without pinning every portal's.
   */
  with(values: Iterable<string | undefined>): OperationSecrets {
    return new OperationSecrets(this, values)
  }

  /** The secrets known now: pinned, current, older generations. */
  values(): Iterable<string> {
    return this.#all()
  }

  /**
   * `value` read once into a redacted snapshot (see `readThrown`). An object's snapshot is kept while the object
   * lives: the channels, spans and log lines of one failure all come from one read of it.
   */
  snapshot(value: unknown): ThrownSnapshot {
    // The secrets' forms are prepared once for every text of the value.
    if (!isObject(value)) return readThrown(value, new PreparedSecrets(this.#all()))
    const known = this.#snapshots?.get(value)
    if (known) return known
    const read = readThrown(value, new PreparedSecrets(this.#all()), this.#knownSnapshot)
    this.#snapshots ??= new WeakMap()
    this.#snapshots.set(value, read)
    return read
  }

  /**
   * A log line's context as plain data: every value read once (an error read before gives its snapshot), known
   * secrets and values under secret keys replaced, an error shown by its name, message, code, status, description,
   * cause and errors.
   */
  loggable(context: Record<string, unknown>): Record<string, unknown> {
    const logged = readThrown(context, new PreparedSecrets(this.#all()), this.#knownSnapshot).logged()
    return typeof logged === 'object' && logged !== null && !Array.isArray(logged) ? logged : {}
  }

  *#all(): Iterable<string> {
    yield* this.#pinned
    yield* this.#current
    yield* this.#old
  }
}

/**
 * The secrets of one operation (an event, an install, a store read) layered on an instance's registry: what it
 * redacts is both. Made for the operation and dropped with it, so that a fleet of many portals keeps no token of an
 * event it handled; a thrown value is read once per operation.
 */
export class OperationSecrets implements SecretRedactor {
  readonly #base: SecretRegistry
  readonly #own: string[] = []
  /** Values read in this operation, by object: a store failure's message and its `cause` come from one read. */
  #snapshots: WeakMap<object, ThrownSnapshot> | null = null
  readonly #knownSnapshot = (value: object): ThrownSnapshot | undefined => this.#snapshots?.get(value)

  /** `values` layered on `base`; empty or very short values are ignored. */
  constructor(base: SecretRegistry, values: Iterable<string | undefined>) {
    this.#base = base
    this.add(values)
  }

  /** Adds secrets met during the operation (the pair the store held); empty or very short values are ignored. */
  add(values: Iterable<string | undefined>): this {
    for (const value of values)
      if (isSecretCandidate(value) && !this.#own.includes(value)) this.#own.push(value)
    return this
  }

  /** `text` with every secret of the registry and of the operation replaced, as `SecretRegistry.redactText` does. */
  redactText(text: string): string {
    return this.#prepared().redactText(text)
  }

  /** `value` read once into a snapshot redacted of the registry's and the operation's secrets. */
  snapshot(value: unknown): ThrownSnapshot {
    if (!isObject(value)) return readThrown(value, this.#prepared())
    const known = this.#snapshots?.get(value)
    if (known) return known
    const read = readThrown(value, this.#prepared(), this.#knownSnapshot)
    this.#snapshots ??= new WeakMap()
    this.#snapshots.set(value, read)
    return read
  }

  /** The registry's secrets and the operation's, ready for the texts of one read. */
  #prepared(): PreparedSecrets {
    return new PreparedSecrets([...this.#base.values(), ...this.#own])
  }
}
