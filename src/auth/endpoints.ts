import { ApiVersion } from '../types/api-version.js'

/** The OAuth token URL for an OAuth server REST root: its trailing `rest/` becomes `oauth/token/` (protocol.md 1.1). */
export function tokenUrlFor(serverEndpoint: string): string {
  return serverEndpoint.replace(/rest\/?$/, 'oauth/token/')
}

/** The per-version REST roots of a portal REST root (`…/rest/`): v2 is the root, v3 the root plus `api/`. */
export function versionRoots(clientEndpoint: string): Map<ApiVersion, string> {
  return new Map<ApiVersion, string>([
    [ApiVersion.v2, clientEndpoint],
    [ApiVersion.v3, `${clientEndpoint}api/`],
  ])
}

/** `scheme://host[:port]` of an absolute URL. */
export function originOf(url: string): string {
  return new URL(url).origin
}
