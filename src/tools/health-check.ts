import type { CallAction } from '../actions/call.js'
import type { LoggerInterface } from '../logger/logger.js'
import { PROBE_METHOD } from './ping.js'
import type { ToolOptions } from './tool-options.js'

/** `tools.healthCheck`: whether the portal answers and accepts this client's credentials. */
export class HealthCheckTool {
  readonly #call: () => CallAction
  readonly #logger: LoggerInterface

  constructor(call: () => CallAction, logger: LoggerInterface) {
    this.#call = call
    this.#logger = logger
  }

  /**
   * Calls `server.time` (v2): `true` when it succeeds (portal reachable, token or webhook accepted, refreshing the
   * token first if it expired), `false` on any failure. Never throws; the reason goes to the logger at debug level.
   */
  async make(options: ToolOptions = {}): Promise<boolean> {
    try {
      const result = await this.#call().make({
        method: PROBE_METHOD,
        ...(options.requestId === undefined ? {} : { requestId: options.requestId }),
      })
      if (result.isSuccess) return true
      this.#logger.debug(`healthCheck: ${PROBE_METHOD} failed: ${result.getErrorMessages().join('; ')}`, {
        requestId: options.requestId,
      })
      return false
    } catch (error) {
      this.#logger.debug(
        `healthCheck: ${PROBE_METHOD} failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          requestId: options.requestId,
        },
      )
      return false
    }
  }
}
