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

/**
 * Connects to the Redis server of `url` with the application's own client: ioredis when installed, else node-redis
 * (`redis`); both are optional peer dependencies of the package.
 */
export async function openRedis(url: URL): Promise<OpenRedis> {
  const where = describeUrl(url)
  const ioredis = await import('ioredis').catch(() => undefined)
  if (ioredis) {
    const client = new ioredis.Redis(url.href, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    })
    try {
      await client.connect()
    } catch (error) {
      client.disconnect()
      throw new CommandFailure(`--store ${where}: cannot connect (${(error as Error).message})`)
    }
    return { client, close: async () => void (await client.quit().catch(() => client.disconnect())) }
  }
  const redis = await import('redis').catch(() => undefined)
  if (!redis)
    throw new CommandFailure(
      '--store needs a Redis client: npm install ioredis (or redis) next to portal-oauth',
    )
  const client = redis.createClient({ url: url.href, socket: { reconnectStrategy: false } })
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    throw new CommandFailure(`--store ${where}: cannot connect (${(error as Error).message})`)
  }
  return { client: client as unknown as RedisClient, close: async () => void (await client.close()) }
}
