import type { RedisClient } from '../store/redis-connection.js'
import { CommandFailure, UsageError } from './exit-codes.js'

/** A connected Redis client and how to close it. */
export interface OpenRedis {
  client: RedisClient
  close(): Promise<void>
}

/** Checks a `--store` value: a `redis://` or `rediss://` URL. */
export function storeUrl(command: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`${command}: --store must be a redis:// or rediss:// URL`)
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new UsageError(`${command}: --store must be a redis:// or rediss:// URL, got ${url.protocol}//`)
  return url
}

/** Where a URL points, without its password. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`
}

/** How long a command waits for the Redis server to answer its first command, ms. */
export const REDIS_CONNECT_TIMEOUT_MS = 3_000

/** Checks a `--prefix` value: braces would move the key's hash tag off the portal's member id. */
export function prefixFlag(command: string, value: string | undefined): { prefix?: string } {
  if (value === undefined) return {}
  if (/[{}]/.test(value))
    throw new UsageError(
      `${command}: --prefix must not contain { or }, got '${value}' (the braces around the member id keep a portal's keys on one Redis Cluster slot)`,
    )
  return { prefix: value }
}

/** Why a connection failed, in the words of the socket (`connect ECONNREFUSED 127.0.0.1:6379`). */
function reason(error: unknown, last: Error | undefined): string {
  const own = error instanceof Error ? error.message : String(error)
  // A port that answers something else than Redis (HTTP's "H..."): the client's parser gives up on the first byte.
  if (/Protocol error/i.test(`${own} ${last?.message ?? ''}`))
    return 'it does not answer as a Redis server does'
  // ioredis answers "Connection is closed." once the socket is gone: the socket's own error says why.
  return last !== undefined && /closed/i.test(own) ? last.message : own
}

/** `connecting`, or a failure after {@link REDIS_CONNECT_TIMEOUT_MS}: a port that accepts but never answers. */
async function within<T>(connecting: Promise<T>, where: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no Redis answer within ${REDIS_CONNECT_TIMEOUT_MS / 1000} s from ${where}`)),
      REDIS_CONNECT_TIMEOUT_MS,
    )
  })
  try {
    return await Promise.race([connecting, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Connects to the Redis server of `url` with the application's own client: ioredis when installed, else node-redis
 * (`redis`); both are optional peer dependencies of the package. The client never reconnects and its errors are
 * listened to: a server that is down or is no Redis server ends the command with one line, not a client's stack.
 */
export async function openRedis(url: URL): Promise<OpenRedis> {
  const where = describeUrl(url)
  let last: Error | undefined
  const remember = (error: Error): void => {
    last = error
  }
  const ioredis = await import('ioredis').catch(() => undefined)
  if (ioredis) {
    const client = new ioredis.Redis(url.href, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      retryStrategy: () => null,
    })
    client.on('error', remember)
    try {
      await within(client.connect(), where)
    } catch (error) {
      client.disconnect()
      throw new CommandFailure(`--store ${where}: cannot connect (${reason(error, last)})`)
    }
    return { client, close: async () => void (await client.quit().catch(() => client.disconnect())) }
  }
  const redis = await import('redis').catch(() => undefined)
  if (!redis)
    throw new CommandFailure(
      '--store needs a Redis client: npm install ioredis (or redis) next to portal-oauth',
    )
  const client = redis.createClient({
    url: url.href,
    socket: { reconnectStrategy: false, connectTimeout: REDIS_CONNECT_TIMEOUT_MS },
  })
  client.on('error', remember)
  try {
    await within(client.connect(), where)
  } catch (error) {
    // Not open yet, destroy throws; the socket is closed either way.
    try {
      client.destroy()
    } catch {}
    throw new CommandFailure(`--store ${where}: cannot connect (${reason(error, last)})`)
  }
  return { client: client as unknown as RedisClient, close: async () => void (await client.close()) }
}
