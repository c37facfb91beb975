import { createHash, randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { PortalOAuthParams } from '../types/auth.js'
import { validateAuthParams } from '../validation/auth-params.js'
import type { DeadPairReason, SpendingMark } from './token-store.js'

/** The stored pair, or `null` for a missing or unreadable value (then the instances seed the store again). */
export function parsePair(raw: unknown): PortalOAuthParams | null {
  if (typeof raw !== 'string') return null
  try {
    return validateAuthParams(JSON.parse(raw))
  } catch {
    return null
  }
}

/** The dead mark names its refresh token by a digest: the token itself is kept only in the pair. */
export function tokenDigest(refreshToken: string): string {
  return createHash('sha256').update(refreshToken).digest('base64url')
}

/** The dead mark when it names the refresh token of `digest`, else `null`. */
export function parseDeadMark(raw: unknown, digest: string): DeadPairReason | null {
  if (typeof raw !== 'string') return null
  try {
    const mark: unknown = JSON.parse(raw)
    if (typeof mark !== 'object' || mark === null) return null
    const { token, code, description, status } = mark as Record<string, unknown>
    if (token !== digest || typeof code !== 'string' || typeof status !== 'number') return null
    return { code, description: typeof description === 'string' ? description : '', status }
  } catch {
    return null
  }
}

/** A spending mark as stored: its owner, the digest of the refresh token, when, and its TTL (renewed with the lock). */
export function spendingMark(owner: string, refreshToken: string, ttlMs: number): string {
  return JSON.stringify({ owner, token: tokenDigest(refreshToken), since: Date.now(), ttl: ttlMs })
}

/** The spending mark when it names the refresh token of `digest`, else `null`. */
export function parseSpendingMark(raw: unknown, digest: string): SpendingMark | null {
  if (typeof raw !== 'string') return null
  try {
    const mark: unknown = JSON.parse(raw)
    if (typeof mark !== 'object' || mark === null) return null
    const { owner, token, since } = mark as Record<string, unknown>
    if (token !== digest || typeof owner !== 'string' || typeof since !== 'number') return null
    return { owner, since }
  } catch {
    return null
  }
}

/**
 * A refresh lock's owner token: unique (a random UUID) and, after the `@`, the host and process that hold it, for
 * `portal-oauth fleet status`.
 */
export function lockOwner(): string {
  ownerSuffix ??= `@${hostname()}:${process.pid}`
  return randomUUID() + ownerSuffix
}

/** `@host:pid` of this process, read once: `hostname()` asks the system at each call. */
let ownerSuffix: string | undefined

/** Who holds a lock, from its owner token: `host:pid`, or `'unknown'` for an owner without one. */
export function lockHolder(owner: string): string {
  const at = owner.indexOf('@')
  return at < 0 ? 'unknown' : owner.slice(at + 1)
}
