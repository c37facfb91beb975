import {
  MAX_RETRIES,
  MAX_RETRY_DELAY_MS,
  requireBoolean,
  requireIntegerIn,
  requireNumberIn,
  requirePlainObject,
  unknownKeys,
} from '../validation/rules.js'
import type {
  AdaptiveConfigParams,
  OperatingLimitParams,
  RateLimitParams,
  RestrictionParams,
  RestrictionParamsInput,
} from './restriction-params.js'

/** Longest operating-limit window or budget a user can mean, ms: one hour (the portal's window is 10 minutes). */
const MAX_OPERATING_WINDOW_MS = 3_600_000

function base(burstLimit: number, drainRate: number): RestrictionParams {
  return {
    rateLimit: { burstLimit, drainRate, adaptiveEnabled: true },
    operatingLimit: { windowMs: 600_000, limitMs: 480_000, heavyPercent: 80 },
    adaptiveConfig: { enabled: true, thresholdPercent: 80, coefficient: 0.01, maxDelay: 7_000 },
    maxRetries: 3,
    retryDelay: 1_000,
    retryOnNetworkError: true,
  }
}

const RATE_LIMIT_KEYS: ReadonlySet<keyof RateLimitParams> = new Set([
  'burstLimit',
  'drainRate',
  'adaptiveEnabled',
])
const OPERATING_LIMIT_KEYS: ReadonlySet<keyof OperatingLimitParams> = new Set([
  'windowMs',
  'limitMs',
  'heavyPercent',
])
const ADAPTIVE_CONFIG_KEYS: ReadonlySet<keyof AdaptiveConfigParams> = new Set([
  'enabled',
  'thresholdPercent',
  'coefficient',
  'maxDelay',
])
const GROUP_KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  rateLimit: RATE_LIMIT_KEYS,
  operatingLimit: OPERATING_LIMIT_KEYS,
  adaptiveConfig: ADAPTIVE_CONFIG_KEYS,
}
const TOP_KEYS: ReadonlySet<keyof RestrictionParams> = new Set([
  'rateLimit',
  'operatingLimit',
  'adaptiveConfig',
  'maxRetries',
  'retryDelay',
  'retryOnNetworkError',
])

/** Names of keys of `changes` (top level, and `group.key` inside its groups) that restriction params do not know. */
export function unknownRestrictionKeys(changes: RestrictionParamsInput): string[] {
  // Only called on settings that ParamsFactory.merge has checked to be an object.
  return unknownKeys(changes as Record<string, unknown>, TOP_KEYS, GROUP_KEYS)
}

/** The known keys of `group` in `changes` (validated as an object), so that unknown ones never enter the params. */
function known<T>(changes: Record<string, unknown>, group: string, keys: ReadonlySet<keyof T>): Partial<T> {
  const value = changes[group]
  if (value === undefined) return {}
  const given = requirePlainObject(`restrictionParams.${group}`, value)
  const out: Partial<Record<keyof T, unknown>> = {}
  for (const key of keys) if (given[key as string] !== undefined) out[key] = given[key as string]
  return out as Partial<T>
}

function validate(next: RestrictionParams): void {
  const field = (name: string) => `restrictionParams.${name}`
  const { rateLimit, operatingLimit, adaptiveConfig } = next
  requireNumberIn(field('rateLimit.burstLimit'), rateLimit.burstLimit, 1)
  requireNumberIn(field('rateLimit.drainRate'), rateLimit.drainRate, 0.001)
  requireBoolean(field('rateLimit.adaptiveEnabled'), rateLimit.adaptiveEnabled)
  const window = { unit: 'ms' } as const
  requireIntegerIn(
    field('operatingLimit.windowMs'),
    operatingLimit.windowMs,
    1,
    MAX_OPERATING_WINDOW_MS,
    window,
  )
  requireIntegerIn(
    field('operatingLimit.limitMs'),
    operatingLimit.limitMs,
    1,
    MAX_OPERATING_WINDOW_MS,
    window,
  )
  requireNumberIn(field('operatingLimit.heavyPercent'), operatingLimit.heavyPercent, 0, 100)
  requireBoolean(field('adaptiveConfig.enabled'), adaptiveConfig.enabled)
  requireNumberIn(field('adaptiveConfig.thresholdPercent'), adaptiveConfig.thresholdPercent, 0, 100)
  requireNumberIn(field('adaptiveConfig.coefficient'), adaptiveConfig.coefficient, 0)
  requireIntegerIn(field('adaptiveConfig.maxDelay'), adaptiveConfig.maxDelay, 0, MAX_RETRY_DELAY_MS, window)
  requireIntegerIn(field('maxRetries'), next.maxRetries, 0, MAX_RETRIES)
  requireIntegerIn(field('retryDelay'), next.retryDelay, 0, MAX_RETRY_DELAY_MS, window)
  requireBoolean(field('retryOnNetworkError'), next.retryOnNetworkError)
}

/** Ready-made {@link RestrictionParams} for the portal's plans (contract 5). */
export const ParamsFactory = {
  /** Every plan but Enterprise: bucket 50, drain 2 per second. */
  getDefault(): RestrictionParams {
    return base(50, 2)
  },
  /** Enterprise plans: bucket 250, drain 5 per second. */
  getEnterprise(): RestrictionParams {
    return base(250, 5)
  },
  /**
   * `current` with `changes` merged group by group, validated. Throws an `SdkError` naming the field on bad input,
   * so that partial settings never break later calls. Unknown keys are left out of the result.
   */
  merge(current: RestrictionParams, changes: RestrictionParamsInput = {}): RestrictionParams {
    const given = requirePlainObject('restrictionParams', changes)
    const next: RestrictionParams = {
      rateLimit: { ...current.rateLimit, ...known<RateLimitParams>(given, 'rateLimit', RATE_LIMIT_KEYS) },
      operatingLimit: {
        ...current.operatingLimit,
        ...known<OperatingLimitParams>(given, 'operatingLimit', OPERATING_LIMIT_KEYS),
      },
      adaptiveConfig: {
        ...current.adaptiveConfig,
        ...known<AdaptiveConfigParams>(given, 'adaptiveConfig', ADAPTIVE_CONFIG_KEYS),
      },
      maxRetries: (given.maxRetries ?? current.maxRetries) as number,
      retryDelay: (given.retryDelay ?? current.retryDelay) as number,
      retryOnNetworkError: (given.retryOnNetworkError ?? current.retryOnNetworkError) as boolean,
    }
    validate(next)
    return next
  },
}
