// The declarations name Node's own types (AbortSignal, URL, node:http): a TypeScript consumer needs @types/node (README.md, "TypeScript settings").
/// <reference types="node" preserve="true" />
/**
 * `portal-oauth/redis`: `RedisStore`, the token store shared by every process on one Redis server, a Cluster or a
 * master behind Sentinel. It works on the client handed to it (ioredis 5 or 6, or node-redis 6) and loads neither
 * itself: both are optional peer dependencies.
 * @module
 */
export type {
  IORedisClient,
  IORedisSubscriber,
  NodeRedisClient,
  NodeRedisCluster,
  NodeRedisListener,
  NodeRedisSentinel,
  NodeRedisSubscriber,
  RedisClient,
} from './store/redis-connection.js'
export { RedisStoreInventory, type StoredPortal } from './store/redis-inventory.js'
export { DEFAULT_PAIR_TTL_MS, RedisStore, type RedisStoreOptions } from './store/redis-store.js'
