import { randomBytes } from 'node:crypto'
import type { IssuedPair, TokenStore } from './tokens.js'

/** How long an authorization code can be exchanged, ms: the portal's 30 s. */
export const AUTHORIZATION_CODE_TTL_MS = 30_000

/** Why an exchange failed. */
export type CodeExchangeFailure = 'unknown' | 'expired' | 'used'

interface IssuedCode {
  /** Unix ms after which the code is refused. */
  expiresAtMs: number
  userId: number
  used: boolean
}

/** Authorization codes the OAuth server accepts: each valid 30 s, exchanged once for a new pair. */
export class AuthorizationCodes {
  readonly #codes = new Map<string, IssuedCode>()
  readonly #now: () => number

  constructor(now: () => number) {
    this.#now = now
  }

  /** A new code for `userId`, as the portal's redirect to the application carries it. */
  issue(userId: number): string {
    const code = randomBytes(35).toString('hex')
    this.#codes.set(code, { expiresAtMs: this.#now() + AUTHORIZATION_CODE_TTL_MS, userId, used: false })
    return code
  }

  /** Exchanges `code` for a new pair (a new renewal chain), or says why it cannot be. */
  exchange(
    code: string,
    tokens: TokenStore,
  ): { ok: true; pair: IssuedPair } | { ok: false; reason: CodeExchangeFailure } {
    const record = this.#codes.get(code)
    if (!record) return { ok: false, reason: 'unknown' }
    if (record.used) return { ok: false, reason: 'used' }
    if (this.#now() >= record.expiresAtMs) return { ok: false, reason: 'expired' }
    record.used = true
    return { ok: true, pair: tokens.issue(record.userId) }
  }
}
