/**
 * What `RedisStore` needs of a Redis client, and the adapters that give it over ioredis (5, 6) and node-redis (`redis`
 * 6): commands routed by key (one hash slot per portal on a cluster), and change messages. Both clients are described
 * by their shape only, so importing `portal-oauth/redis` loads neither and its types need neither.
 */

/** An ioredis `Redis` (one server, or a master found through Sentinel) or `Cluster`, version 5 or 6. */
export interface IORedisClient {
  /** ioredis: a command by name; a cluster routes it by its first key. */
  call(command: string, ...args: string[]): Promise<unknown>
  /** ioredis: `true` on a `Cluster`. */
  readonly isCluster?: boolean
  /** ioredis: a new connection with the same options. */
  duplicate(...args: never[]): IORedisSubscriber
}

/** The ioredis subscriber connection `duplicate()` opens. */
export interface IORedisSubscriber {
  on(event: string, listener: (...args: unknown[]) => void): unknown
  subscribe(channel: string): Promise<unknown>
  unsubscribe(channel: string): Promise<unknown>
  ssubscribe(channel: string): Promise<unknown>
  sunsubscribe(channel: string): Promise<unknown>
  disconnect(): void
}

/** A node-redis listener of one channel: the message, then the channel (strings, or buffers in buffer mode). */
export type NodeRedisListener = (message: unknown, channel: unknown) => unknown

/** A node-redis client of one server (`createClient()`), connected. */
export interface NodeRedisClient {
  sendCommand(args: string[]): Promise<unknown>
  duplicate(): NodeRedisSubscriber
}

/** The node-redis connection `duplicate()` gives, for subscriptions. */
export interface NodeRedisSubscriber {
  on(event: 'error', listener: (error: unknown) => void): unknown
  connect(): Promise<unknown>
  subscribe(channel: string, listener: NodeRedisListener): Promise<unknown>
  unsubscribe(channel: string): Promise<unknown>
  destroy(): unknown
}

/** A node-redis cluster (`createCluster()`), connected: sharded subscriptions on its own connections. */
export interface NodeRedisCluster {
  sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>
  sSubscribe(channel: string, listener: NodeRedisListener): Promise<unknown>
  sUnsubscribe(channel: string, listener?: NodeRedisListener): Promise<unknown>
  readonly masters: unknown
}

/** A node-redis client through Sentinel (`createSentinel()`), connected: it follows the master on failover. */
export interface NodeRedisSentinel {
  sendCommand(isReadonly: boolean, args: string[]): Promise<unknown>
  subscribe(channel: string, listener: NodeRedisListener): Promise<unknown>
  unsubscribe(channel: string, listener?: NodeRedisListener): Promise<unknown>
  getMasterNode(): unknown
}

/** Every client `new RedisStore(client)` takes; it stays the caller's to connect and to close. */
export type RedisClient = IORedisClient | NodeRedisClient | NodeRedisCluster | NodeRedisSentinel

/** The subscriptions of one store to change messages. */
export interface ChangeSubscriptions {
  subscribe(channel: string): Promise<unknown>
  unsubscribe(channel: string): Promise<unknown>
  /** Ends every subscription and closes what was opened for them. */
  close(): void
}

/** A Redis client as the store uses it. */
export interface RedisConnection {
  /** A cluster: changes are announced with sharded pub/sub (`SPUBLISH`). */
  readonly sharded: boolean
  /** Sends `args` (a command and its arguments); `key`, the first key, routes it on a cluster. */
  send(key: string, args: string[]): Promise<unknown>
  /** Subscriptions whose messages go to `onMessage` with their channel. */
  subscriptions(onMessage: (channel: string) => void): ChangeSubscriptions
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** The connection over `client`, or `null` when it is none of the supported clients. */
export function redisConnection(client: unknown): RedisConnection | null {
  if (!isObject(client)) return null
  if (typeof client.call === 'function' && typeof client.duplicate === 'function')
    return ioredisConnection(client as unknown as IORedisClient)
  if (typeof client.sendCommand !== 'function') return null
  if ('masters' in client && typeof client.sSubscribe === 'function')
    return nodeRedisCluster(client as unknown as NodeRedisCluster)
  if (typeof client.getMasterNode === 'function' && typeof client.subscribe === 'function')
    return nodeRedisSentinel(client as unknown as NodeRedisSentinel)
  if (typeof client.duplicate === 'function') return nodeRedisClient(client as unknown as NodeRedisClient)
  return null
}

function ioredisConnection(client: IORedisClient): RedisConnection {
  const sharded = client.isCluster === true
  return {
    sharded,
    send: (_key, [command, ...args]) => client.call(command!, ...args),
    subscriptions(onMessage) {
      // A cluster routes sharded subscriptions to the node owning the slot only with sharded subscribers on.
      const subscriber = sharded
        ? (client.duplicate as (nodes: unknown[], options: object) => IORedisSubscriber)([], {
            shardedSubscribers: true,
          })
        : client.duplicate()
      // Failures of this connection only slow waits down to the poll interval; ioredis reconnects and resubscribes.
      subscriber.on('error', () => undefined)
      subscriber.on(sharded ? 'smessage' : 'message', (channel) => onMessage(String(channel)))
      return {
        subscribe: (channel) => (sharded ? subscriber.ssubscribe(channel) : subscriber.subscribe(channel)),
        unsubscribe: (channel) =>
          sharded ? subscriber.sunsubscribe(channel) : subscriber.unsubscribe(channel),
        close: () => subscriber.disconnect(),
      }
    },
  }
}

function nodeRedisClient(client: NodeRedisClient): RedisConnection {
  return {
    sharded: false,
    send: (_key, args) => client.sendCommand(args),
    subscriptions(onMessage) {
      // node-redis subscribes on a connection of its own, opened when first needed.
      let subscriber: NodeRedisSubscriber | null = null
      let connected: Promise<unknown> | null = null
      const connection = async (): Promise<NodeRedisSubscriber> => {
        if (!subscriber) {
          subscriber = client.duplicate()
          subscriber.on('error', () => undefined)
          connected = subscriber.connect()
        }
        await connected
        return subscriber
      }
      const listener: NodeRedisListener = (_message, channel) => onMessage(String(channel))
      return {
        subscribe: async (channel) => (await connection()).subscribe(channel, listener),
        unsubscribe: async (channel) => (await connection()).unsubscribe(channel),
        close: () => {
          subscriber?.destroy()
          subscriber = null
        },
      }
    },
  }
}

/** Subscriptions a node-redis cluster or sentinel keeps on connections of its own. */
function ownSubscriptions(
  subscribe: (channel: string, listener: NodeRedisListener) => Promise<unknown>,
  unsubscribe: (channel: string, listener: NodeRedisListener) => Promise<unknown>,
  onMessage: (channel: string) => void,
): ChangeSubscriptions {
  const channels = new Set<string>()
  const listener: NodeRedisListener = (_message, channel) => onMessage(String(channel))
  return {
    subscribe: (channel) => {
      channels.add(channel)
      return subscribe(channel, listener)
    },
    unsubscribe: (channel) => {
      channels.delete(channel)
      return unsubscribe(channel, listener)
    },
    close: () => {
      for (const channel of channels) unsubscribe(channel, listener).catch(() => undefined)
      channels.clear()
    },
  }
}

function nodeRedisCluster(cluster: NodeRedisCluster): RedisConnection {
  return {
    sharded: true,
    send: (key, args) => cluster.sendCommand(key, false, args),
    subscriptions: (onMessage) =>
      ownSubscriptions(
        (channel, listener) => cluster.sSubscribe(channel, listener),
        (channel, listener) => cluster.sUnsubscribe(channel, listener),
        onMessage,
      ),
  }
}

function nodeRedisSentinel(sentinel: NodeRedisSentinel): RedisConnection {
  return {
    sharded: false,
    send: (_key, args) => sentinel.sendCommand(false, args),
    subscriptions: (onMessage) =>
      ownSubscriptions(
        (channel, listener) => sentinel.subscribe(channel, listener),
        (channel, listener) => sentinel.unsubscribe(channel, listener),
        onMessage,
      ),
  }
}
