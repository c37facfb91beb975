import type { CallAction } from '../actions/call.js'
import type { LoggerInterface } from '../logger/logger.js'
import { HealthCheckTool } from './health-check.js'
import { PingTool } from './ping.js'

/** `portal.tools`: probes of the portal connection. */
export interface PortalTools {
  /** Round trip of `server.time` in ms: `tools.ping.make({ requestId })`. */
  readonly ping: PingTool
  /** Portal reachable and credentials accepted, never throws: `tools.healthCheck.make({ requestId })`. */
  readonly healthCheck: HealthCheckTool
}

/** Builds the tools of an instance over its v2 `call` action. */
export function createTools(call: () => CallAction, logger: LoggerInterface): PortalTools {
  return { ping: new PingTool(call), healthCheck: new HealthCheckTool(call, logger) }
}
