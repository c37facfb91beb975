import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { RestrictionParams, RestrictionParamsInput } from './restriction-params.js'

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

function invalid(field: string, problem: string): SdkError {
  return new SdkError({
    code: SdkErrorCode.InvalidArgument,
    message: `restrictionParams.${field} ${problem}`,
  })
}

function checkNumber(field: string, value: number, min: number, max = Number.POSITIVE_INFINITY): void {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw invalid(field, `must be a finite number, got ${String(value)}`)
  if (value < min || value > max) throw invalid(field, `must be between ${min} and ${max}, got ${value}`)
}

function checkBoolean(field: string, value: boolean): void {
  if (typeof value !== 'boolean') throw invalid(field, `must be a boolean, got ${typeof value}`)
}

/** Ready-made {@link RestrictionParams} for the portal's plans (protocol.md 5). */
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
   * so that partial settings never break later calls.
   */
  merge(current: RestrictionParams, changes: RestrictionParamsInput = {}): RestrictionParams {
    if (changes === null || typeof changes !== 'object') throw invalid('', 'must be an object')
    const next: RestrictionParams = {
      rateLimit: { ...current.rateLimit, ...changes.rateLimit },
      operatingLimit: { ...current.operatingLimit, ...changes.operatingLimit },
      adaptiveConfig: { ...current.adaptiveConfig, ...changes.adaptiveConfig },
      maxRetries: changes.maxRetries ?? current.maxRetries,
      retryDelay: changes.retryDelay ?? current.retryDelay,
      retryOnNetworkError: changes.retryOnNetworkError ?? current.retryOnNetworkError,
    }
    checkNumber('rateLimit.burstLimit', next.rateLimit.burstLimit, 1)
    checkNumber('rateLimit.drainRate', next.rateLimit.drainRate, 0.001)
    checkBoolean('rateLimit.adaptiveEnabled', next.rateLimit.adaptiveEnabled)
    checkNumber('operatingLimit.windowMs', next.operatingLimit.windowMs, 1)
    checkNumber('operatingLimit.limitMs', next.operatingLimit.limitMs, 1)
    checkNumber('operatingLimit.heavyPercent', next.operatingLimit.heavyPercent, 0, 100)
    checkBoolean('adaptiveConfig.enabled', next.adaptiveConfig.enabled)
    checkNumber('adaptiveConfig.thresholdPercent', next.adaptiveConfig.thresholdPercent, 0, 100)
    checkNumber('adaptiveConfig.coefficient', next.adaptiveConfig.coefficient, 0)
    checkNumber('adaptiveConfig.maxDelay', next.adaptiveConfig.maxDelay, 0)
    checkNumber('maxRetries', next.maxRetries, 0, 100)
    checkNumber('retryDelay', next.retryDelay, 0)
    checkBoolean('retryOnNetworkError', next.retryOnNetworkError)
    return next
  },
}
