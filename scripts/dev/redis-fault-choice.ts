import type { RedisUnderTest } from './redis-server.js'

/** How a figures script makes Redis fail, and how it is made to answer again. */
export interface RedisFault {
  begin(redis: RedisUnderTest): Promise<void>
  end(redis: RedisUnderTest): Promise<void>
}

/** The fault the script's first argument names (`fallback` without one); `null`, said on stderr, for an unknown name. */
export function chosenFault(
  faults: Record<string, RedisFault>,
  fallback: string,
): { name: string; fault: RedisFault } | null {
  const name = process.argv[2] ?? fallback
  const fault = faults[name]
  if (fault) return { name, fault }
  console.error(`unknown fault ${name}: one of ${Object.keys(faults).join(', ')}`)
  return null
}
