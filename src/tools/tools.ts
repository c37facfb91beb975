import type { V2CallAction } from '../actions/actions.js'
import type { LoggerInterface } from '../logger/logger.js'
import { MAX_RETRY_DELAY_MS, requireIntegerIn } from '../validation/rules.js'

/** The cheap authenticated call both tools make. */
const PROBE_METHOD = 'server.time'

/** Options of `tools.ping.make` / `tools.healthCheck.make`. */
export interface ToolOptions {
  /** A label sent as `X-Request-Id`. */
  requestId?: string
}

/** Default deadline of `tools.healthCheck.make`, ms. */
export const HEALTH_CHECK_TIMEOUT_MS = 3_000

/** Options of `tools.healthCheck.make`. */
export interface HealthCheckOptions extends ToolOptions {
  /**
   * Deadline of the whole check, ms, from 1 to 300 000 (default 3 000): a refresh, the
   * limiter's wait, the request and its retries. A portal that has not answered by then is not healthy.
   */
  timeout?: number
}

/** The probe call, with the caller's request id when given. */
function probe(call: V2CallAction, options: ToolOptions, signal?: AbortSignal) {
  return call.make({
    method: PROBE_METHOD,
    ...(options.requestId === undefined ? {} : { requestId: options.requestId }),
    ...(signal === undefined ? {} : { signal }),
  })
}

/** `tools.ping`: how long a cheap authenticated call takes. */
export class PingTool {
  readonly #call: V2CallAction

  constructor(call: V2CallAction) {
    this.#call = call
  }

  /**
   * Calls `server.time` (v2) and resolves with the round trip in ms, measured from the call to its answer, so a
   * wait in the instance's rate limiter counts too. Rejects with the portal's error (an `SdkError`) when the call
   * fails at REST level, and with the transport's `AjaxError` when the portal cannot be reached. Use
   * `healthCheck` for a yes or no that never throws.
   */
  async make(options: ToolOptions = {}): Promise<number> {
    const started = performance.now()
    const result = await probe(this.#call, options)
    const elapsed = performance.now() - started
    const [error] = result.getErrors()
    if (error) throw error
    return elapsed
  }
}

/** `tools.healthCheck`: whether the portal answers and accepts this client's credentials. */
export class HealthCheckTool {
  readonly #call: V2CallAction
  readonly #logger: LoggerInterface

  constructor(call: V2CallAction, logger: LoggerInterface) {
    this.#call = call
    this.#logger = logger
  }

  /**
   * Calls `server.time` (v2): `true` when it succeeds within `timeout` (portal reachable, token or webhook accepted,
   * refreshing the token first if it expired), `false` on any failure or when the deadline passes first (a refused
   * connection is retried by the client for seconds, a health check does not wait for that). Never throws for the
   * portal's sake; the reason goes to the logger at debug level. A `timeout` out of range throws an `SdkError`
   * naming it.
   */
  async make(options: HealthCheckOptions = {}): Promise<boolean> {
    const timeout = requireIntegerIn(
      'tools.healthCheck: timeout',
      options.timeout ?? HEALTH_CHECK_TIMEOUT_MS,
      1,
      MAX_RETRY_DELAY_MS,
      { unit: 'ms' },
    )
    let reason: string
    try {
      const result = await probe(this.#call, options, AbortSignal.timeout(timeout))
      if (result.isSuccess) return true
      reason = result.getErrorMessages().join('; ')
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error)
    }
    this.#logger.debug(`healthCheck: ${PROBE_METHOD} failed: ${reason}`, { requestId: options.requestId })
    return false
  }
}

/** `portal.tools`: probes of the portal connection. */
export interface PortalTools {
  /** Round trip of `server.time` in ms: `tools.ping.make({ requestId })`. */
  readonly ping: PingTool
  /** Portal reachable and credentials accepted within a deadline, never throws: `tools.healthCheck.make({ timeout })`. */
  readonly healthCheck: HealthCheckTool
}

/** Builds the tools of an instance over its v2 `call` action. */
export function createTools(call: V2CallAction, logger: LoggerInterface): PortalTools {
  return { ping: new PingTool(call), healthCheck: new HealthCheckTool(call, logger) }
}
