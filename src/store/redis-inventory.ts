import type { PortalOAuthParams } from '../types/auth.js'
import { invalidArgument } from '../validation/rules.js'
import { type RedisClient, type RedisConnection, redisConnection } from './redis-connection.js'
import { portalKeys, validatePrefix } from './redis-keys.js'
import { lockHolder, parseDeadMark, parsePair, tokenDigest } from './redis-values.js'
import type { DeadPairReason } from './token-store.js'

/** What a `RedisStore` holds of one portal, as `portal-oauth fleet` reads it. */
export interface StoredPortal {
  /** The portal's member id. */
  memberId: string
  /** Its pair, or `null` (uninstalled, or never stored). */
  pair: PortalOAuthParams | null
  /** Whether an uninstall removed it (and no install came since). */
  removed: boolean
  /** Why the OAuth server refused the stored pair's refresh token, or `null` while it was not refused. */
  dead: DeadPairReason | null
  /** Who holds the refresh lock (`host:pid`) and for how many more ms, or `null` when nobody does. */
  lock: { holder: string; ttlMs: number } | null
}

/** Escapes the glob characters of a key prefix for `SCAN MATCH`. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`)
}

/**
 * Reads what a `RedisStore` with the same prefix holds, portal by portal, without changing anything: for status
 * pages and `portal-oauth fleet`. One server or a Sentinel's master: `SCAN` on a Cluster would see one node only.
 */
export class RedisStoreInventory {
  readonly #connection: RedisConnection
  readonly #prefix: string

  constructor(client: RedisClient, options: { prefix?: string } = {}) {
    const connection = redisConnection(client)
    if (!connection)
      throw invalidArgument('RedisStoreInventory: client', 'must be an ioredis or node-redis client')
    if (connection.sharded)
      throw invalidArgument(
        'RedisStoreInventory: client',
        'must be one server or a Sentinel master, not a Cluster',
      )
    this.#connection = connection
    this.#prefix = validatePrefix(options.prefix)
  }

  /** The member ids of every portal with a pair or an uninstall mark, sorted. */
  async memberIds(): Promise<string[]> {
    const head = `${this.#prefix}{`
    const found = new Set<string>()
    for (const suffix of ['}:pair', '}:removed']) {
      const pattern = `${globEscape(head)}*${globEscape(suffix)}`
      let cursor = '0'
      do {
        const answer = (await this.#connection.send(head, [
          'SCAN',
          cursor,
          'MATCH',
          pattern,
          'COUNT',
          '1000',
        ])) as [string | Buffer, Array<string | Buffer>]
        cursor = String(answer[0])
        for (const key of answer[1].map(String)) found.add(key.slice(head.length, key.length - suffix.length))
      } while (cursor !== '0')
    }
    return [...found].sort()
  }

  /** What the store holds of `memberId`. */
  async read(memberId: string): Promise<StoredPortal> {
    const keys = portalKeys(this.#prefix, memberId)
    const send = (args: string[]): Promise<unknown> => this.#connection.send(keys.pair, args)
    const [rawPair, removed, rawDead, owner, ttl] = await Promise.all([
      send(['GET', keys.pair]),
      send(['EXISTS', keys.removed]),
      send(['GET', keys.dead]),
      send(['GET', keys.lock]),
      send(['PTTL', keys.lock]),
    ])
    const pair = parsePair(typeof rawPair === 'string' ? rawPair : rawPair?.toString())
    const dead = pair ? parseDeadMark(rawDead?.toString(), tokenDigest(pair.refreshToken)) : null
    const holder = owner === null || owner === undefined ? null : lockHolder(String(owner))
    return {
      memberId,
      pair,
      removed: Number(removed) === 1,
      dead,
      lock: holder === null ? null : { holder, ttlMs: Math.max(0, Number(ttl)) },
    }
  }
}
