import { randomBytes } from 'node:crypto'

/** Lifetimes and rotation rules of the token store. */
export interface TokenPolicy {
  accessTokenTtl: number
  refreshTokenTtl: number
  allowRefreshReuse: boolean
  revokePreviousAccessToken: boolean
}

/** An issued access token. */
export interface AccessTokenRecord {
  token: string
  /** Unix seconds. */
  expires: number
  expiresIn: number
  userId: number
  forcedExpired: boolean
  revoked: boolean
}

/** An issued refresh token. */
export interface RefreshTokenRecord {
  token: string
  /** Unix ms. */
  expiresAtMs: number
  used: boolean
  userId: number
  /** The access token issued together with this refresh token. */
  accessToken: string
  /** The application was uninstalled since: the token works no more. */
  revoked: boolean
}

/** A pair just issued. */
export interface IssuedPair {
  access: AccessTokenRecord
  refresh: RefreshTokenRecord
}

/** Result of checking an access token. */
export type AccessCheck =
  | { ok: true; record: AccessTokenRecord }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' }

/** Result of a refresh attempt. */
export type RefreshOutcome =
  | { ok: true; pair: IssuedPair }
  | { ok: false; reason: 'unknown' | 'expired' | 'used' | 'revoked' }

/**
 * Issues and checks token pairs. Tokens mimic the live shape: 70 lowercase hex characters (35 bytes) whose first
 * 4 bytes, little-endian, are the token's expiry in unix seconds; bytes 12-15 are the user id (big-endian).
 */
export class TokenStore {
  readonly #access = new Map<string, AccessTokenRecord>()
  readonly #refresh = new Map<string, RefreshTokenRecord>()
  readonly #now: () => number
  readonly #policy: TokenPolicy
  readonly #appBytes: Buffer
  #counter = 0
  #newest: IssuedPair | undefined

  constructor(now: () => number, policy: TokenPolicy, memberId: string) {
    this.#now = now
    this.#policy = policy
    this.#appBytes = Buffer.from(memberId.padEnd(16, '0').slice(0, 16), 'hex').subarray(0, 8)
  }

  /** Issue a pair that starts a new renewal chain. */
  issue(userId: number, expiresIn = this.#policy.accessTokenTtl): IssuedPair {
    const nowMs = this.#now()
    const expires = Math.floor(nowMs / 1000) + expiresIn
    const access: AccessTokenRecord = {
      token: this.#makeToken(expires, userId),
      expires,
      expiresIn,
      userId,
      forcedExpired: false,
      revoked: false,
    }
    const refreshExpiresMs = nowMs + this.#policy.refreshTokenTtl * 1000
    const refresh: RefreshTokenRecord = {
      token: this.#makeToken(Math.floor(refreshExpiresMs / 1000), userId),
      expiresAtMs: refreshExpiresMs,
      used: false,
      userId,
      accessToken: access.token,
      revoked: false,
    }
    this.#access.set(access.token, access)
    this.#refresh.set(refresh.token, refresh)
    const pair = { access, refresh }
    this.#newest = pair
    return pair
  }

  /** Check an access token presented on a REST call. */
  checkAccess(token: string): AccessCheck {
    const record = this.#access.get(token)
    if (!record) return { ok: false, reason: 'unknown' }
    if (record.revoked) return { ok: false, reason: 'revoked' }
    if (record.forcedExpired || this.#now() >= record.expires * 1000) return { ok: false, reason: 'expired' }
    return { ok: true, record }
  }

  /** Rotate: consume the refresh token and issue a new pair in the same chain. */
  refresh(token: string): RefreshOutcome {
    const record = this.#refresh.get(token)
    if (!record) return { ok: false, reason: 'unknown' }
    if (record.revoked) return { ok: false, reason: 'revoked' }
    if (this.#now() >= record.expiresAtMs) return { ok: false, reason: 'expired' }
    if (record.used && !this.#policy.allowRefreshReuse) return { ok: false, reason: 'used' }
    record.used = true
    if (this.#policy.revokePreviousAccessToken) {
      const previous = this.#access.get(record.accessToken)
      if (previous) previous.revoked = true
    }
    return { ok: true, pair: this.issue(record.userId) }
  }

  /** Revoke every token issued so far, access and refresh tokens alike: the application was uninstalled. */
  revokeAll(): void {
    for (const record of this.#access.values()) record.revoked = true
    for (const record of this.#refresh.values()) record.revoked = true
  }

  /** Mark every access token issued so far as expired. */
  expireAll(): void {
    for (const record of this.#access.values()) record.forcedExpired = true
  }

  /** The newest pair's access token if still valid. */
  get currentAccessToken(): string | undefined {
    const token = this.#newest?.access.token
    return token !== undefined && this.checkAccess(token).ok ? token : undefined
  }

  /** The newest pair's refresh token if still usable. */
  get currentRefreshToken(): string | undefined {
    const record = this.#newest?.refresh
    if (!record || this.#now() >= record.expiresAtMs) return undefined
    if (record.used && !this.#policy.allowRefreshReuse) return undefined
    return record.token
  }

  #makeToken(expirySeconds: number, userId: number): string {
    const bytes = Buffer.alloc(35)
    bytes.writeUInt32LE(expirySeconds >>> 0, 0)
    this.#appBytes.copy(bytes, 4)
    bytes.writeUInt32BE(userId >>> 0, 12)
    this.#counter += 1
    bytes.writeUInt32BE(this.#counter >>> 0, 16)
    randomBytes(15).copy(bytes, 20)
    return bytes.toString('hex')
  }
}
