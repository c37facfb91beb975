import { ApiVersion } from '../types/api-version.js'

/** The OAuth token URL for an OAuth server REST root: its trailing `rest/` becomes `oauth/token/` (contract 3.1). */
export function tokenUrlFor(serverEndpoint: string): string {
  return serverEndpoint.replace(/rest\/?$/, 'oauth/token/')
}

/** The REST root of one API version under a portal REST root (`…/rest/`): v2 is the root, v3 the root plus `api/`. */
export function versionRoot(clientEndpoint: string, apiVersion: ApiVersion): string {
  return apiVersion === ApiVersion.v3 ? `${clientEndpoint}api/` : clientEndpoint
}

/** The REST roots of both API versions under a portal REST root. */
export function versionRoots(clientEndpoint: string): Map<ApiVersion, string> {
  return new Map<ApiVersion, string>([
    [ApiVersion.v2, versionRoot(clientEndpoint, ApiVersion.v2)],
    [ApiVersion.v3, versionRoot(clientEndpoint, ApiVersion.v3)],
  ])
}

/** `scheme://host[:port]` of an absolute URL. */
export function originOf(url: string): string {
  return new URL(url).origin
}
