import type { RedisOptions } from 'ioredis'
import { createClient, createCluster } from 'redis'
import { MemoryStore, type TokenStore } from '../../src/index.js'
import { type RedisClient, RedisStore, type RedisStoreOptions } from '../../src/redis.js'
import { createMemoryLogger } from '../helpers.js'
import { Cluster, Redis } from './ioredis-under-test.js'
import { type RedisUnderTest, redisInstalled, startRedisCluster, startRedisServer } from './redis-server.js'

/** A store backend the contract tests run against. */
export interface Backend {
  readonly name: string
  /** False when the backend needs a Redis binary this machine lacks. */
  readonly available: boolean
  /** Whether stores from {@link Opened.store} share a process; the Redis ones each have their own connection. */
  readonly inProcess: boolean
  /** The Redis client the stores are built on (worker processes build theirs the same way). */
  readonly client?: ClientKind
  /** A Redis Cluster. */
  readonly cluster?: boolean
  open(): Promise<Opened>
}

/** A running backend. */
export interface Opened {
  /** A store over the backend: for Redis a new client connection and a new `RedisStore` each time. */
  store(options?: RedisStoreOptions): TokenStore
  /** Loses every portal's data, as a Redis restart without persistence does. */
  loseData(memberIds: string[]): Promise<void>
  /** The server under test, for Redis. */
  readonly redis: RedisUnderTest | undefined
  /** A raw connection for checks from outside the store. */
  client(): Redis | Cluster
  close(): Promise<void>
}

/** The Redis client a store of a backend is built on. */
export type ClientKind = 'ioredis' | 'node-redis'

/** A node-redis client or cluster for `redis`, connecting; closed by the returned function. */
function nodeRedisClient(
  redis: RedisUnderTest,
  cluster: boolean,
): { client: object; close: () => Promise<void> } {
  if (!cluster) {
    const [first] = redis.nodes
    const client = createClient({ socket: { host: first!.host, port: first!.port } })
    client.on('error', () => undefined)
    // Commands sent while it connects wait in its queue.
    client.connect().catch(() => undefined)
    return { client, close: async () => client.destroy() }
  }
  const made = createCluster({ rootNodes: redis.nodes.map((node) => ({ socket: node })) })
  made.on('error', () => undefined)
  const ready = made.connect()
  // A node-redis cluster refuses commands until it has connected, as an application awaits `connect()` first.
  const connected = new Proxy(made, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (property !== 'sendCommand' && property !== 'sSubscribe' && property !== 'sUnsubscribe')
        return value.bind(target)
      return async (...args: unknown[]) => {
        await ready
        return value.apply(target, args)
      }
    },
  })
  return {
    client: connected,
    close: async () => {
      await ready.catch(() => undefined)
      made.destroy()
    },
  }
}

/** The pass of the Redis tests on ioredis 6 (`PORTAL_OAUTH_TEST_IOREDIS=6`) leaves node-redis to the main pass. */
const ioredisPass = process.env.PORTAL_OAUTH_TEST_IOREDIS === '6'

function redisBackend(
  name: string,
  start: () => Promise<RedisUnderTest>,
  cluster: boolean,
  kind: ClientKind = 'ioredis',
  ioredisOptions: RedisOptions = {},
): Backend {
  return {
    name,
    available: redisInstalled && (kind === 'ioredis' || !ioredisPass),
    inProcess: false,
    client: kind,
    cluster,
    async open() {
      const redis = await start()
      const clients: Array<Redis | Cluster> = []
      const closers: Array<() => Promise<void>> = []
      const stores: TokenStore[] = []
      const client = (): Redis | Cluster => {
        const [first] = redis.nodes
        const made = cluster
          ? new Cluster(redis.nodes, { redisOptions: ioredisOptions })
          : new Redis(first!.port, first!.host, ioredisOptions)
        // As an application does: a server that is down or restarting is reported through the store's operations.
        made.on('error', () => undefined)
        clients.push(made)
        return made
      }
      const storeClient = (): object => {
        if (kind === 'ioredis') return client()
        const made = nodeRedisClient(redis, cluster)
        closers.push(made.close)
        return made.client
      }
      return {
        redis,
        client,
        store(options) {
          // The store's warnings (an outage, replicas short) go to a memory logger unless a test asks for them: a
          // passing run prints nothing that reads like a failure.
          const store = new RedisStore(storeClient() as RedisClient, {
            logger: createMemoryLogger(),
            ...options,
          })
          stores.push(store)
          return store
        },
        loseData: () => redis.flushAll(),
        async close() {
          await Promise.all(stores.map((store) => store.close()))
          for (const made of clients) made.disconnect()
          await Promise.all(closers.map((close) => close()))
          await redis.stop()
        },
      }
    },
  }
}

/** The in-process default store. */
export const memoryBackend: Backend = {
  name: 'MemoryStore',
  available: true,
  inProcess: true,
  async open() {
    const store = new MemoryStore()
    return {
      redis: undefined,
      store: () => store,
      loseData: async () => store.clear(),
      client: () => {
        throw new Error('MemoryStore has no Redis client')
      },
      close: () => store.close(),
    }
  },
}

/** RedisStore on one throwaway server. */
export const redisServerBackend = redisBackend('RedisStore (one server)', startRedisServer, false)

/** RedisStore on one throwaway server, ioredis pipelining the commands of a tick (docs/redis.md recommends it). */
export const autoPipeliningBackend = redisBackend(
  'RedisStore on ioredis with enableAutoPipelining (one server)',
  startRedisServer,
  false,
  'ioredis',
  { enableAutoPipelining: true },
)

/** RedisStore on a throwaway three-master cluster. */
export const redisClusterBackend = redisBackend('RedisStore (cluster)', startRedisCluster, true)

/** RedisStore over node-redis on one throwaway server. */
export const nodeRedisServerBackend = redisBackend(
  'RedisStore on node-redis (one server)',
  startRedisServer,
  false,
  'node-redis',
)

/** RedisStore over node-redis on a throwaway three-master cluster. */
export const nodeRedisClusterBackend = redisBackend(
  'RedisStore on node-redis (cluster)',
  startRedisCluster,
  true,
  'node-redis',
)
