import { createHash } from 'node:crypto'

/**
 * The Lua scripts of `RedisStore`. Each touches the keys of one portal only, which share a hash tag, so each runs on
 * one node of a cluster. The last two arguments of the writing scripts name the publish command (`PUBLISH`,
 * `SPUBLISH` on a cluster, `''` for none) and the channel: the change is announced in the same atomic step.
 */

/** A script and its SHA-1, the name `EVALSHA` knows it by. */
export interface LuaScript {
  readonly source: string
  readonly sha: string
}

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') }
}

const ANNOUNCE = `
if ARGV[#ARGV - 1] ~= '' then redis.call(ARGV[#ARGV - 1], ARGV[#ARGV], 'changed') end
`

/**
 * KEYS[1] the pair; ARGV[1] the pair as JSON, ARGV[2] its `expires`. Keeps the pair unless the stored one expires
 * later; answers the stored pair when it stays, nil when the given one was written. An unreadable stored value is
 * overwritten.
 */
export const SAVE_IF_NEWER = script(`
local held = redis.call('GET', KEYS[1])
if held then
  local ok, pair = pcall(cjson.decode, held)
  if ok and type(pair) == 'table' and type(pair.expires) == 'number' and pair.expires > tonumber(ARGV[2]) then
    return held
  end
end
redis.call('SET', KEYS[1], ARGV[1])
${ANNOUNCE}
return false
`)

/** KEYS[1] the pair; ARGV[1] the pair as JSON. Writes it whatever the store holds. */
export const REPLACE = script(`
redis.call('SET', KEYS[1], ARGV[1])
${ANNOUNCE}
return 1
`)

/** KEYS: the pair, the lock, the bucket. Forgets the portal. */
export const REMOVE = script(`
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
${ANNOUNCE}
return 1
`)

/**
 * KEYS[1] the lock; ARGV[1] the owner. Deletes the lock only when that owner still holds it, and announces it: an
 * instance waiting for the lock takes it at once, also when the holder gives it back without a new pair.
 */
export const UNLOCK = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  ${ANNOUNCE}
  return 1
end
return 0
`)

/**
 * KEYS[1] the bucket (a hash: `level`, requests in it at `at`, ms of the server's clock), KEYS[2] the pair; ARGV:
 * burst limit, drain rate per second, margin ms, slots wanted. The slots wanted are granted while the bucket stays at
 * most half full with them, else one. Time is the Redis server's (`TIME`), the one clock every process
 * shares. The margin keeps that many ms of drain free, for requests that reach the portal closer together than they
 * left. Answers `{ wait, expires, granted }`: wait 0 when slots were taken, else the ms to wait; expires of the stored
 * pair, -1 when there is none (after the server lost its data); the slots taken. A missing bucket is empty; it expires once drained.
 */
export const TAKE_SLOT = script(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local slot = 1000 / tonumber(ARGV[2])
local capacity = math.max(1, tonumber(ARGV[1]) - tonumber(ARGV[3]) / slot)
local pair = redis.call('GET', KEYS[2])
local stored = -1
if pair then
  local ok, decoded = pcall(cjson.decode, pair)
  if ok and type(decoded) == 'table' and type(decoded.expires) == 'number' then stored = decoded.expires end
end
local state = redis.call('HMGET', KEYS[1], 'level', 'at')
local level = tonumber(state[1]) or 0
local at = tonumber(state[2]) or now
level = math.max(0, level - math.max(0, now - at) / slot)
local granted = 0
if level + tonumber(ARGV[4]) <= capacity / 2 then
  granted = tonumber(ARGV[4])
elseif level + 1 <= capacity then
  granted = 1
end
if granted > 0 then
  level = level + granted
  redis.call('HSET', KEYS[1], 'level', string.format('%.6f', level), 'at', string.format('%d', now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(level * slot) + 1000)
  return {0, stored, granted}
end
return {math.max(1, math.ceil((level + 1 - capacity) * slot)), stored, 0}
`)
