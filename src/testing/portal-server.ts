import { handleV2Batch } from './batch-v2.js'
import { handleV3Batch } from './batch-v3.js'
import { flatError } from './envelope.js'
import type { Router } from './http-server.js'
import { handleV2, type PortalRoute } from './rest-v2.js'
import { handleV3 } from './rest-v3.js'
import type { EmulatorState } from './state.js'

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * Parse a portal REST path: `/rest/{method}[.json]`, `/rest/api/{method}`, and the webhook forms
 * `/rest/{userId}/{secret}/{method}` and `/rest/api/{userId}/{secret}/{method}`; anything else → undefined.
 * Repeated slashes count as one, as the portal's web server merges them (`/rest//x` is `/rest/x`): clients that
 * join a root ending in `/` with `/{method}` rely on it.
 */
export function parsePortalPath(rawPathname: string): PortalRoute | undefined {
  const pathname = rawPathname.replace(/\/{2,}/g, '/')
  if (!pathname.startsWith('/rest/')) return undefined
  let segments = pathname.slice('/rest/'.length).split('/').map(decodeSegment)
  let version: PortalRoute['version'] = 'v2'
  if (segments[0] === 'api' && segments.length > 1) {
    version = 'v3'
    segments = segments.slice(1)
  }
  let hook: PortalRoute['hook']
  let name: string | undefined
  if (segments.length === 1) {
    name = segments[0]
  } else if (segments.length === 3 && /^\d+$/.test(segments[0] ?? '') && segments[1] !== '') {
    hook = { userId: Number(segments[0]), secret: segments[1] ?? '' }
    name = segments[2]
  }
  const method = (name ?? '').toLowerCase().replace(/\.json$/, '')
  if (method === '') return undefined
  return { version, method, hook }
}

/** Routes of the portal server: v2, v3, both batches and webhooks; any other path → 404. */
export function portalRouter(state: EmulatorState): Router {
  return (url) => {
    const route = parsePortalPath(url.pathname)
    if (!route) {
      return {
        kind: 'other',
        handle: async () => flatError(404, 'ERROR_METHOD_NOT_FOUND', 'Method not found!'),
      }
    }
    const isBatch = route.method === 'batch'
    return {
      kind: route.hook ? 'webhook' : isBatch ? 'batch' : 'rest',
      apiVersion: route.version,
      restMethod: route.method,
      handle: (call) => {
        if (route.version === 'v3')
          return isBatch ? handleV3Batch(state, call, route) : handleV3(state, call, route)
        return isBatch ? handleV2Batch(state, call, route) : handleV2(state, call, route)
      },
    }
  }
}
