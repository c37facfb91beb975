import type { CallAction } from '../actions/call.js'
import type { ToolOptions } from './tool-options.js'

/** The cheap authenticated call both tools make. */
export const PROBE_METHOD = 'server.time'

/** `tools.ping`: how long a cheap authenticated call takes. */
export class PingTool {
  readonly #call: () => CallAction

  constructor(call: () => CallAction) {
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
    const result = await this.#call().make({
      method: PROBE_METHOD,
      ...(options.requestId === undefined ? {} : { requestId: options.requestId }),
    })
    const elapsed = performance.now() - started
    const [error] = result.getErrors()
    if (error) throw error
    return elapsed
  }
}
