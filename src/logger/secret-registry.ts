const REDACTED = '[redacted]'
/** Keys whose values are secrets wherever they appear in a logged context. */
const SECRET_KEY =
  /^(auth|access_?token|refresh_?token|client_?secret|application_?token|authorization|secret|password)$/i
/** Old tokens stay secrets after a rotation; keep enough of them to cover late log lines. */
const MAX_OLD_SECRETS = 32
/** Shorter values are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 6
/** How deep a cause chain or a nested value is followed. */
const MAX_DEPTH = 8

function isSecretCandidate(value: string | undefined): value is string {
  return value !== undefined && value.length >= MIN_SECRET_LENGTH
}

/**
 * Remembers the secret values of one instance and removes them from text, values and errors. The client secret,
 * the application token, a webhook secret and the current pair are never forgotten; the pairs of older generations
 * are kept up to a bound.
 */
export class SecretRegistry {
  /** Never evicted: client secret, application token, webhook secret. */
  readonly #pinned = new Set<string>()
  /** The current access and refresh token; never evicted while current. */
  #current: string[] = []
  /** Tokens of older generations, newest last. */
  readonly #old: string[] = []

  /** Adds a secret that is kept for the instance's life; empty or very short values are ignored. */
  pin(value: string | undefined): void {
    if (isSecretCandidate(value)) this.#pinned.add(value)
  }

  /** Makes a pair current; the previous current pair joins the older generations (the newest 32 tokens are kept). */
  setCurrentPair(accessToken: string, refreshToken: string): void {
    for (const previous of this.#current) this.add(previous)
    this.#current = [accessToken, refreshToken].filter(isSecretCandidate)
  }

  /** Adds a secret of an older generation; empty or very short values are ignored. */
  add(value: string | undefined): void {
    if (!isSecretCandidate(value) || this.#old.includes(value)) return
    this.#old.push(value)
    if (this.#old.length > MAX_OLD_SECRETS) this.#old.shift()
  }

  /** `text` with every known secret replaced by `[redacted]`. */
  redactText(text: string): string {
    let out = text
    for (const secret of this.#all()) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    }
    return out
  }

  /**
   * A deep copy of `value` with secret keys and known secret values redacted. Errors become plain objects; a property
   * whose getter throws becomes `[unreadable]`; nesting deeper than 6 (a cycle) is cut there.
   */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value)
    if (value === null || typeof value !== 'object' || depth > 6) return value
    if (value instanceof Error) {
      const plain: Record<string, unknown> = { name: value.name, message: value.message }
      for (const key of ['code', 'status', 'description'] as const) {
        if (key in value) plain[key] = readProperty(value, key)
      }
      return this.redactValue(plain, depth + 1)
    }
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1))
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const item = readProperty(value, key)
      out[key] =
        SECRET_KEY.test(key) && item !== undefined && item !== ''
          ? REDACTED
          : this.redactValue(item, depth + 1)
    }
    return out
  }

  /** Whether a known secret, or a non-empty value under a secret key, appears anywhere in `value`. */
  holdsSecret(value: unknown): boolean {
    return this.#holdsSecret(value, 0, new Set())
  }

  /**
   * `error` as it may reach a caller or a log line. The same object when no known secret appears in its message,
   * stack, `cause` chain or own properties (getters included); otherwise a copy with the same prototype (so `instanceof`,
   * `name` and `code` still work) in which all of those are redacted.
   */
  redactError<E extends Error>(error: E): E {
    return this.#holdsSecret(error, 0, new Set()) ? this.#redactedError(error, 0) : error
  }

  *#all(): Iterable<string> {
    yield* this.#pinned
    yield* this.#current
    yield* this.#old
  }

  #holdsSecret(value: unknown, depth: number, seen: Set<unknown>): boolean {
    if (typeof value === 'string') return this.redactText(value) !== value
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || seen.has(value)) return false
    seen.add(value)
    if (value instanceof Error) {
      if (this.#holdsSecret(value.message, depth, seen) || this.#holdsSecret(value.stack, depth, seen))
        return true
      if ('cause' in value && this.#holdsSecret(value.cause, depth + 1, seen)) return true
    }
    for (const key of ownKeys(value)) {
      const item = readProperty(value, key)
      if (SECRET_KEY.test(key) && typeof item === 'string' && item !== '') return true
      if (this.#holdsSecret(item, depth + 1, seen)) return true
    }
    return false
  }

  #redactedError<E extends Error>(error: E, depth: number): E {
    const copy = Object.create(Object.getPrototypeOf(error) as object) as E
    const hidden = { writable: true, configurable: true, enumerable: false }
    for (const key of ownKeys(error)) {
      if (key === 'message' || key === 'stack' || key === 'cause') continue
      const item = readProperty(error, key)
      const safe =
        SECRET_KEY.test(key) && typeof item === 'string' && item !== ''
          ? REDACTED
          : this.redactValue(item, depth + 1)
      const enumerable = Object.getOwnPropertyDescriptor(error, key)?.enumerable ?? true
      Object.defineProperty(copy, key, { ...hidden, enumerable, value: safe })
    }
    Object.defineProperty(copy, 'message', { ...hidden, value: this.redactText(error.message) })
    if (error.stack !== undefined)
      Object.defineProperty(copy, 'stack', { ...hidden, value: this.redactText(error.stack) })
    if ('cause' in error) {
      const cause = error.cause
      const safe =
        cause instanceof Error && depth < MAX_DEPTH
          ? this.#redactedError(cause, depth + 1)
          : this.redactValue(cause)
      Object.defineProperty(copy, 'cause', { ...hidden, value: safe })
    }
    return copy
  }
}

/** Own string keys of `value`: an error's non-enumerable ones too (a `code` getter), a plain object's enumerable ones. */
function ownKeys(value: object): string[] {
  return value instanceof Error ? Object.getOwnPropertyNames(value) : Object.keys(value)
}

/** `value[key]`, or `[unreadable]` when its getter throws. */
function readProperty(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key]
  } catch {
    return '[unreadable]'
  }
}
