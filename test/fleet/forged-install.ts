import type { PortalEmulator } from '../../src/testing/index.js'

/** The `app.info` requests the emulator's OAuth server received. */
export function proofRequests(portal: PortalEmulator): number {
  return portal.log.entries.filter((entry) => entry.server === 'oauth' && entry.restMethod === 'app.info')
    .length
}

/** A member id of a portal never seen. */
export function strangerId(index: number): string {
  return `f${index.toString(16).padStart(31, '0')}`
}

/**
 * An `ONAPPINSTALL` a sender made up, naming the trusted OAuth server: a made-up access token and by default a
 * portal never seen.
 */
export function forgedInstall(
  portal: PortalEmulator,
  options: { memberId: string; accessToken: string; applicationToken?: string },
): URLSearchParams {
  const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
  body.set('auth[member_id]', options.memberId)
  body.set('auth[access_token]', options.accessToken)
  body.set('auth[application_token]', options.applicationToken ?? 'b'.repeat(32))
  // A day later than anything the portal issued: newer than any stored pair, so that only the proof refuses it.
  body.set('auth[expires]', String(Number(body.get('auth[expires]')) + 86_400))
  return body
}
