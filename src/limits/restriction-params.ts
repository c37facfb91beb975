/** Leaky bucket of the portal (contract 5.1): `burstLimit` requests at once, draining `drainRate` per second. */
export interface RateLimitParams {
  /** Bucket size X: requests allowed in a burst. */
  burstLimit: number
  /** Drain Y: requests per second once the bucket is full. */
  drainRate: number
  /** On a `QUERY_LIMIT_EXCEEDED` answer, empty the local bucket so that pacing re-synchronises with the portal. */
  adaptiveEnabled: boolean
}

/** Per-method operating (execution time) budget (contract 5.2). */
export interface OperatingLimitParams {
  /**
   * The portal's sliding window, ms. When an answer reports `time.operating` without `operating_reset_at`, the use
   * it reports counts for this long at most.
   */
  windowMs: number
  /** Budget of one method within the window, ms. */
  limitMs: number
  /** Above this share of `limitMs` (percent) calls of a method run one at a time. */
  heavyPercent: number
}

/** Delay added to calls of a method whose operating time nears its budget. */
export interface AdaptiveConfigParams {
  /** Whether to add the delay at all. */
  enabled: boolean
  /** Share of `limitMs` (percent) from which the delay applies. */
  thresholdPercent: number
  /** Delay = used operating ms × `coefficient`, capped by `maxDelay`. */
  coefficient: number
  /** Longest delay, ms; also the longest wait for an operating-limit reset before the error result is returned. */
  maxDelay: number
}

/** Everything that paces the client under the portal's limits. */
export interface RestrictionParams {
  /** The leaky bucket. */
  rateLimit: RateLimitParams
  /** The per-method operating budget. */
  operatingLimit: OperatingLimitParams
  /** The adaptive delay. */
  adaptiveConfig: AdaptiveConfigParams
  /** Retries of a rate-limited (503), operating-limited (429) or failed-in-transit request. */
  maxRetries: number
  /** Base of the exponential backoff between retries, ms (doubled per retry, up to 25 % more at random, 5 minutes at most). */
  retryDelay: number
  /** Whether failures in transit (timeouts, resets) are retried for calls that cannot create twice. */
  retryOnNetworkError: boolean
}

/** A partial {@link RestrictionParams}, nested groups partial too. */
export interface RestrictionParamsInput {
  /** Leaky bucket settings to change. */
  rateLimit?: Partial<RateLimitParams>
  /** Operating limit settings to change. */
  operatingLimit?: Partial<OperatingLimitParams>
  /** Adaptive delay settings to change. */
  adaptiveConfig?: Partial<AdaptiveConfigParams>
  /** See {@link RestrictionParams.maxRetries}. */
  maxRetries?: number
  /** See {@link RestrictionParams.retryDelay}. */
  retryDelay?: number
  /** See {@link RestrictionParams.retryOnNetworkError}. */
  retryOnNetworkError?: boolean
}
