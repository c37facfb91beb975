/** Options of `tools.ping.make` / `tools.healthCheck.make`. */
export interface ToolOptions {
  /** A label sent as `X-Request-Id`. */
  requestId?: string
}
