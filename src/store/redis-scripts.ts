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
 * KEYS[1] the pair, KEYS[2] the removal mark; ARGV[1] the pair as JSON, ARGV[2] its `expires`, ARGV[3] the pair's
 * lifetime, ms. Keeps the pair unless the stored one expires later or the portal was removed; every answer renews the
 * stored pair's lifetime. Answers the stored pair when it stays, 0 when the portal was removed (nothing written), nil
 * when the given one was written. An unreadable stored value is overwritten.
 */
export const SAVE_IF_NEWER = script(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local held = redis.call('GET', KEYS[1])
if held then
  local ok, pair = pcall(cjson.decode, held)
  if ok and type(pair) == 'table' and type(pair.expires) == 'number' and pair.expires > tonumber(ARGV[2]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return held
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
${ANNOUNCE}
return false
`)

/**
 * KEYS[1] the pair, KEYS[2] the removal mark; ARGV[1] the pair as JSON, ARGV[2] its lifetime, ms. Writes it whatever
 * the store holds (an install or update), which ends a removal.
 */
export const REPLACE = script(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
${ANNOUNCE}
return 1
`)

/**
 * KEYS[1] the pair, KEYS[2] the dead mark; ARGV[1] the refresh token that died, ARGV[2] the mark (JSON), ARGV[3] its
 * lifetime, ms. Records it only while the store holds the pair with that refresh token.
 */
export const MARK_DEAD = script(`
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local ok, pair = pcall(cjson.decode, held)
if not ok or type(pair) ~= 'table' or pair.refreshToken ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`)

/**
 * KEYS: the pair, the lock, the bucket, the dead mark, the removal mark; ARGV[1] the removal mark's lifetime, ms. Forgets the portal and
 * marks it removed, so that an instance still holding its pair (in another process) learns of it at its next call
 * and never writes the pair back.
 */
export const REMOVE = script(`
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('SET', KEYS[5], '1', 'PX', ARGV[1])
${ANNOUNCE}
return 1
`)

/** Lua: whether the spending mark at `key` was left by `owner` (the mark is JSON naming its owner). */
const OWN_MARK = `
local function ownMark(key, owner)
  local mark = redis.call('GET', key)
  if not mark then return false end
  local ok, decoded = pcall(cjson.decode, mark)
  return ok and type(decoded) == 'table' and decoded.owner == owner, decoded
end
`

/**
 * KEYS[1] the lock, KEYS[2] the spending mark; ARGV[1] the owner. Deletes the lock only when that owner still holds
 * it, and announces it: an instance waiting for the lock takes it at once, also when the holder gives it back without
 * a new pair. Deletes the owner's spending mark whoever holds the lock: the owner knows how its refresh ended.
 */
export const UNLOCK = script(`
${OWN_MARK}
if ownMark(KEYS[2], ARGV[1]) then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  ${ANNOUNCE}
  return 1
end
return 0
`)

/**
 * KEYS[1] the lock, KEYS[2] the spending mark; ARGV[1] the owner, ARGV[2] the lock's TTL, ms. Extends the lock of
 * the owner, or takes it again when it is free, and extends the owner's spending mark by its own TTL (in the mark).
 * Answers 1 when the owner holds the lock afterwards, 0 when another does.
 */
export const RENEW_LOCK = script(`
${OWN_MARK}
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local own, mark = ownMark(KEYS[2], ARGV[1])
if own and tonumber(mark.ttl) then redis.call('PEXPIRE', KEYS[2], math.floor(tonumber(mark.ttl))) end
return 1
`)

/**
 * KEYS[1] the lock, KEYS[2] the spending mark; ARGV[1] the owner, ARGV[2] the mark (JSON), ARGV[3] its TTL, ms. Writes
 * the mark only while the owner holds the lock; answers 1 when it did.
 */
export const MARK_SPENDING = script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`)

/**
 * KEYS[1] the bucket (a hash: `level`, requests in it at `at`, ms of the server's clock), KEYS[2] the pair, KEYS[3]
 * the removal mark; ARGV:
 * burst limit, drain rate per second, margin ms, slots wanted. The slots wanted are granted while the bucket stays at
 * most half full with them, else one. Time is the Redis server's (`TIME`), the one clock every process
 * shares. The margin keeps that many ms of drain free, for requests that reach the portal closer together than they
 * left. Answers `{ wait, expires, granted }`: wait 0 when slots were taken, else the ms to wait; expires of the stored
 * pair, -1 when there is none (after the server lost its data), -2 when the portal was removed; the slots taken. A missing bucket is empty; it expires once drained.
 */
export const TAKE_SLOT = script(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local slot = 1000 / tonumber(ARGV[2])
local capacity = math.max(1, tonumber(ARGV[1]) - tonumber(ARGV[3]) / slot)
local pair = redis.call('GET', KEYS[2])
local stored = -1
if redis.call('EXISTS', KEYS[3]) == 1 then
  stored = -2
elseif pair then
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
