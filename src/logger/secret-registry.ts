const REDACTED = '[redacted]'
/** Keys whose values are secrets wherever they appear in a logged context. */
const SECRET_KEY =
  /^(auth|access_?token|refresh_?token|client_?secret|application_?token|authorization|secret|password)$/i
/** Old tokens stay secrets after a rotation; keep enough of them to cover late log lines. */
const MAX_SECRETS = 32
/** Shorter values are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 6

/** Remembers the secret values of one instance (tokens, client secret, webhook secret) and removes them from text. */
export class SecretRegistry {
  readonly #secrets: string[] = []

  /** Adds a secret value; empty or very short values are ignored. */
  add(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.#secrets.includes(value)) return
    this.#secrets.push(value)
    if (this.#secrets.length > MAX_SECRETS) this.#secrets.shift()
  }

  /** `text` with every known secret replaced by `[redacted]`. */
  redactText(text: string): string {
    let out = text
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    }
    return out
  }

  /** A deep copy of `value` with secret keys and known secret values redacted. Errors become plain objects. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value)
    if (value === null || typeof value !== 'object' || depth > 6) return value
    if (value instanceof Error) {
      const plain: Record<string, unknown> = { name: value.name, message: value.message }
      for (const key of ['code', 'status', 'description'] as const) {
        if (key in value) plain[key] = (value as unknown as Record<string, unknown>)[key]
      }
      return this.redactValue(plain, depth + 1)
    }
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      out[key] =
        SECRET_KEY.test(key) && item !== undefined && item !== ''
          ? REDACTED
          : this.redactValue(item, depth + 1)
    }
    return out
  }
}
