/** How long a successful v3 answer is replayed for the same `Idempotency-Key`. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

const VALID_KEY = /^[\x20-\x7e]{1,255}$/

/** A cached successful answer. */
export interface IdempotentAnswer {
  fingerprint: string
  status: number
  body: unknown
  expiresAt: number
}

/** Result of looking a key up before running the call. */
export type IdempotencyLookup =
  | { kind: 'miss' }
  | { kind: 'replay'; answer: IdempotentAnswer }
  | { kind: 'conflict' }

/** True when the header value is a valid key: 1-255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return VALID_KEY.test(key)
}

/** JSON with sorted object keys, so the same parameters in another key order match. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** Successful v3 answers per caller + user + method + key, replayed for 24 h; errors are never cached. */
export class IdempotencyCache {
  readonly #answers = new Map<string, IdempotentAnswer>()

  /** Look the key up for a request whose parameters have `fingerprint`. */
  lookup(scope: string, fingerprint: string, now: number): IdempotencyLookup {
    const answer = this.#answers.get(scope)
    if (!answer) return { kind: 'miss' }
    if (answer.expiresAt <= now) {
      this.#answers.delete(scope)
      return { kind: 'miss' }
    }
    return answer.fingerprint === fingerprint ? { kind: 'replay', answer } : { kind: 'conflict' }
  }

  /** Store a successful answer. */
  store(scope: string, fingerprint: string, status: number, body: unknown, now: number): void {
    this.#answers.set(scope, { fingerprint, status, body, expiresAt: now + IDEMPOTENCY_TTL_MS })
  }
}
