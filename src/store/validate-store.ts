import { invalidArgument } from '../validation/rules.js'
import type { TokenStore } from './token-store.js'

const STORE_METHODS = [
  'load',
  'save',
  'replace',
  'remove',
  'lock',
  'unlock',
  'changed',
  'takeSlot',
  'close',
] as const

/** `options.store` when it is a {@link TokenStore}; `null` when absent. Throws an `SdkError` naming what is missing. */
export function validateStore(value: unknown, field = 'options.store'): TokenStore | null {
  if (value === undefined || value === null) return null
  const missing =
    typeof value === 'object'
      ? STORE_METHODS.filter((name) => typeof (value as Record<string, unknown>)[name] !== 'function')
      : [...STORE_METHODS]
  if (missing.length > 0) {
    throw invalidArgument(
      field,
      `must be a token store (new MemoryStore(), or RedisStore from portal-oauth/redis); it lacks ${missing.join(', ')}`,
    )
  }
  return value as TokenStore
}
