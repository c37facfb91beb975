import { MemoryStore, type TokenStore } from '../../src/index.js'
import { RedisStore, type RedisStoreOptions } from '../../src/redis.js'
import { Cluster, Redis } from './ioredis-under-test.js'
import { type RedisUnderTest, redisInstalled, startRedisCluster, startRedisServer } from './redis-server.js'

/** A store backend the contract tests run against. */
export interface Backend {
  readonly name: string
  /** False when the backend needs a Redis binary this machine lacks. */
  readonly available: boolean
  /** Whether stores from {@link Opened.store} share a process; the Redis ones each have their own connection. */
  readonly inProcess: boolean
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

function redisBackend(name: string, start: () => Promise<RedisUnderTest>, cluster: boolean): Backend {
  return {
    name,
    available: redisInstalled,
    inProcess: false,
    async open() {
      const redis = await start()
      const clients: Array<Redis | Cluster> = []
      const stores: TokenStore[] = []
      const client = (): Redis | Cluster => {
        const [first] = redis.nodes
        const made = cluster ? new Cluster(redis.nodes) : new Redis(first!.port, first!.host)
        clients.push(made)
        return made
      }
      return {
        redis,
        client,
        store(options) {
          const store = new RedisStore(client(), options)
          stores.push(store)
          return store
        },
        loseData: () => redis.flushAll(),
        async close() {
          await Promise.all(stores.map((store) => store.close()))
          for (const made of clients) made.disconnect()
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

/** RedisStore on a throwaway three-master cluster. */
export const redisClusterBackend = redisBackend('RedisStore (cluster)', startRedisCluster, true)
