import { invalidArgument } from '../validation/rules.js'

/** The default prefix of every key and channel of `RedisStore`. */
export const DEFAULT_REDIS_PREFIX = 'portal-oauth:'

/** The keys and the channel of one portal. */
export interface PortalKeys {
  /** A string: the pair as JSON. */
  pair: string
  /** A string: the refresh lock's owner, with a TTL. */
  lock: string
  /** A hash: the leaky bucket's `level` and `at`. */
  bucket: string
  /** A string: why the stored pair died (JSON, with a digest of its refresh token), for instances that join later. */
  dead: string
  /**
   * A string: the refresh token a lock holder is about to present (JSON: its owner, a digest of the token, when),
   * until it saves a newer pair or gives the lock back.
   */
  spending: string
  /** A string set by an uninstall (`remove`) until the next install (`replace`): the portal is not installed. */
  removed: string
  /** Pub/sub channel announcing a change of the pair. */
  changed: string
}

/** Checks a key prefix: braces would move the hash tag off the portal's id. */
export function validatePrefix(prefix: unknown): string {
  if (prefix === undefined) return DEFAULT_REDIS_PREFIX
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
    throw invalidArgument('RedisStore: options.prefix', 'must be a string without braces')
  }
  return prefix
}

/**
 * The keys of one portal. They share the hash tag `{memberId}`, so every script over them runs on one cluster node;
 * the tag is the text up to the first closing brace, which stays one tag per portal whatever the id holds.
 */
export function portalKeys(prefix: string, memberId: string): PortalKeys {
  const base = `${prefix}{${memberId}}:`
  return {
    pair: `${base}pair`,
    lock: `${base}lock`,
    bucket: `${base}bucket`,
    removed: `${base}removed`,
    dead: `${base}dead`,
    spending: `${base}spending`,
    changed: `${base}changed`,
  }
}
