import type { TypeHttp } from '../http/rest-transport.js'
import type { ApiVersion } from '../types/api-version.js'
import { CallAction } from './call.js'

/** The entry points of one REST API version. */
export interface VersionActions {
  /** One REST call: `call.make({ method, params, requestId })`. */
  readonly call: CallAction
}

/** `portal.actions`: the REST entry points per API version. */
export interface PortalActions {
  /** REST v2 (`{clientEndpoint}{method}`). */
  readonly v2: VersionActions
  /** REST v3 (`{clientEndpoint}api/{method}`). */
  readonly v3: VersionActions
}

/** Builds the actions of an instance over its transports. */
export function createActions(transport: (version: ApiVersion) => TypeHttp): PortalActions {
  return {
    v2: { call: new CallAction(() => transport('v2')) },
    v3: { call: new CallAction(() => transport('v3')) },
  }
}
