import { type AccessTokenSettings, DEFAULT_ACCESS_TOKEN_SETTINGS } from '../../machines/access-token.types.js'
import { invalidArgument } from '../validation/rules.js'

/** The refresh options of `PortalOAuth` (all optional; defaults in {@link DEFAULT_ACCESS_TOKEN_SETTINGS}). */
export interface RefreshOptions {
  /** Start a background refresh this many ms before `expires`, on the first call inside that margin. Default 60 000. */
  eagerRefreshMs?: number
  /** Longest wait for one refresh attempt (the OAuth request or a custom refresh), ms. Default 10 000. */
  refreshTimeout?: number
  /** Longest wait for the refresh callback, ms. Default 10 000. */
  callbackTimeout?: number
  /** Further attempts after a transient refresh failure (5xx, connection, timeout). Default 3. */
  refreshRetries?: number
  /** Backoff before the first retry of a refresh, ms; doubled for each further one up to 16 times, jittered. Default 250. */
  refreshRetryDelay?: number
}

/** Option keys of {@link RefreshOptions}. */
export const REFRESH_OPTION_KEYS = [
  'eagerRefreshMs',
  'refreshTimeout',
  'callbackTimeout',
  'refreshRetries',
  'refreshRetryDelay',
] as const

/** Upper bound of every refresh delay: ten minutes is longer than anyone means, and far below a timer's limit. */
const MAX_MS = 600_000

/** `options.${field}` when given (an integer from `min` to `max`), `fallback` when not. */
function integerIn(field: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback
  // The value is echoed as given (`got 5` for the string '5'), as these options' messages always have.
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalidArgument(
      `PortalOAuth: options.${field}`,
      `must be an integer from ${min} to ${max}, got ${String(value)}`,
    )
  return value
}

/** Validates the refresh options and applies the defaults. */
export function normalizeRefreshOptions(options: RefreshOptions): AccessTokenSettings {
  const defaults = DEFAULT_ACCESS_TOKEN_SETTINGS
  // Most instances take the defaults: they share one frozen object instead of holding a copy each.
  if (REFRESH_OPTION_KEYS.every((key) => options[key] === undefined)) return defaults
  return {
    ...defaults,
    eagerRefreshMs: integerIn(
      'eagerRefreshMs',
      options.eagerRefreshMs,
      0,
      3_600_000,
      defaults.eagerRefreshMs,
    ),
    refreshTimeoutMs: integerIn(
      'refreshTimeout',
      options.refreshTimeout,
      1,
      MAX_MS,
      defaults.refreshTimeoutMs,
    ),
    callbackTimeoutMs: integerIn(
      'callbackTimeout',
      options.callbackTimeout,
      1,
      MAX_MS,
      defaults.callbackTimeoutMs,
    ),
    refreshRetries: integerIn('refreshRetries', options.refreshRetries, 0, 10, defaults.refreshRetries),
    retryBaseDelayMs: integerIn(
      'refreshRetryDelay',
      options.refreshRetryDelay,
      1,
      60_000,
      defaults.retryBaseDelayMs,
    ),
    retryMaxDelayMs:
      options.refreshRetryDelay === undefined ? defaults.retryMaxDelayMs : options.refreshRetryDelay * 16,
  }
}

/** The lock's TTL by default: the refresh timeout and 5 s to save the pair, 30 s at most unless the timeout is longer. */
export function defaultLockTtl(settings: AccessTokenSettings): number {
  return Math.max(settings.refreshTimeoutMs + 1_000, Math.min(30_000, settings.refreshTimeoutMs + 5_000))
}

/** Validates `lockTtl`: longer than the refresh timeout (a holder must outlive its attempt), at most two minutes. */
export function normalizeLockTtl(value: unknown, settings: AccessTokenSettings): number {
  return integerIn('lockTtl', value, settings.refreshTimeoutMs + 1, 120_000, defaultLockTtl(settings))
}
