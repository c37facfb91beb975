/** What `npm run load:fleet` reads from its Redis server: commands run, CPU, memory, and the bytes of a portal. */
import type { Redis } from 'ioredis'

/** A reading of the server's counters. */
export interface RedisReading {
  /** Calls per command name (`INFO commandstats`), `info` left out: the load test's own readings. */
  commands: Map<string, number>
  /** User + system CPU of the server so far, s. */
  cpuS: number
  /** `used_memory`, bytes. */
  usedMemory: number
}

function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>()
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1))
  }
  return fields
}

/** Reads the counters with one `INFO` (not counted in `commands`). */
export async function readRedis(client: Redis): Promise<RedisReading> {
  const fields = infoFields(await client.info('everything'))
  const commands = new Map<string, number>()
  for (const [key, value] of fields) {
    if (!key.startsWith('cmdstat_') || key === 'cmdstat_info') continue
    const calls = /(?:^|,)calls=(\d+)/.exec(value)?.[1]
    if (calls !== undefined) commands.set(key.slice('cmdstat_'.length), Number(calls))
  }
  const number = (name: string): number => Number(fields.get(name) ?? Number.NaN)
  return {
    commands,
    cpuS: number('used_cpu_user') + number('used_cpu_sys'),
    usedMemory: number('used_memory'),
  }
}

/** Commands run between two readings, by name, most first. */
export function commandsBetween(before: RedisReading, after: RedisReading): Array<[string, number]> {
  return [...after.commands]
    .map(([name, calls]): [string, number] => [name, calls - (before.commands.get(name) ?? 0)])
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1])
}

/** The keys holding `memberId` (its pair, lock, bucket), found with `SCAN`. */
async function portalKeys(client: Redis, memberId: string): Promise<string[]> {
  const keys: string[] = []
  let cursor = '0'
  do {
    const [nextCursor, batch] = await client.scan(cursor, 'MATCH', `*${memberId}*`, 'COUNT', 1000)
    cursor = nextCursor
    keys.push(...batch)
  } while (cursor !== '0')
  return keys
}

/** The average over `memberIds` of `MEMORY USAGE` summed over each portal's keys, bytes. */
export async function bytesPerPortal(client: Redis, memberIds: readonly string[]): Promise<number> {
  let total = 0
  for (const memberId of memberIds) {
    for (const key of await portalKeys(client, memberId)) {
      total += Number((await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0)
    }
  }
  return memberIds.length === 0 ? Number.NaN : total / memberIds.length
}
