/**
 * `portal-oauth/redis`: `RedisStore`, the token store shared by every process on one Redis server or cluster. It
 * works on the ioredis client handed to it and never loads ioredis itself (an optional peer dependency).
 * @module
 */
export { RedisStore, type RedisStoreOptions } from './store/redis-store.js'
