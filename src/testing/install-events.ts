import type { EmulatorState } from './state.js'
import type { EmulatorInstallEventName, EmulatorInstallEventOptions } from './types.js'

export type { EmulatorInstallEventName, EmulatorInstallEventOptions } from './types.js'

/** The handler ids the portal gives the three bindings of one application. */
const EVENT_HANDLER_IDS: Record<EmulatorInstallEventName, string> = {
  ONAPPINSTALL: '1',
  ONAPPUPDATE: '2',
  ONAPPUNINSTALL: '3',
}

/**
 * The exact form body the portal POSTs to an application's event handler: PHP bracket keys, every leaf a string,
 * `auth` keys in the order the portal sends them. An install or update issues a new pair (a new renewal chain) and
 * carries it with its refresh token; an uninstall carries no token.
 */
export function installEventBody(
  state: EmulatorState,
  event: EmulatorInstallEventName,
  options: EmulatorInstallEventOptions = {},
): string {
  const { settings, endpoints } = state
  const body = new URLSearchParams({ event, event_handler_id: EVENT_HANDLER_IDS[event] })
  const data: [string, string][] =
    event === 'ONAPPINSTALL'
      ? [
          ['VERSION', '1'],
          ['ACTIVE', 'Y'],
          ['INSTALLED', 'Y'],
          ['LANGUAGE_ID', 'en'],
        ]
      : event === 'ONAPPUPDATE'
        ? [
            ['VERSION', '2'],
            ['PREVIOUS_VERSION', '1'],
            ['LANGUAGE_ID', 'en'],
          ]
        : [
            ['LANGUAGE_ID', 'en'],
            ['CLEAN', '0'],
          ]
  for (const [key, value] of data) body.append(`data[${key}]`, value)
  body.append('ts', String(Math.floor(state.now() / 1000)))
  const auth: [string, string][] = []
  if (event === 'ONAPPUNINSTALL') {
    auth.push(
      ['domain', endpoints.portalHost],
      ['server_endpoint', endpoints.serverEndpoint],
      ['client_endpoint', endpoints.clientEndpoint],
      ['member_id', settings.memberId],
    )
  } else {
    const pair = state.tokens.issue(options.userId ?? settings.userId, options.expiresIn)
    auth.push(
      ['access_token', pair.access.token],
      ['expires', String(pair.access.expires)],
      ['expires_in', String(pair.access.expiresIn)],
      ['scope', settings.scope],
      ['domain', endpoints.portalHost],
      ['server_endpoint', endpoints.serverEndpoint],
      ['status', settings.status],
      ['client_endpoint', endpoints.clientEndpoint],
      ['member_id', settings.memberId],
      ['user_id', String(pair.access.userId)],
      ['refresh_token', pair.refresh.token],
    )
  }
  const applicationToken = options.applicationToken ?? settings.applicationToken
  if (applicationToken !== '') auth.push(['application_token', applicationToken])
  for (const [key, value] of auth) body.append(`auth[${key}]`, value)
  return body.toString()
}
