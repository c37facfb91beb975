import type { StoredPortal } from '../store/redis-inventory.js'

/** A portal's state as `fleet status` shows it. */
export type PortalState = 'valid' | 'expiring' | 'expired' | 'dead' | 'uninstalled'

/** Every state, in the order the counts list them. */
export const PORTAL_STATES: readonly PortalState[] = ['valid', 'expiring', 'expired', 'dead', 'uninstalled']

/** One portal's line: what an operator needs, no token and no application token. */
export interface PortalReport {
  memberId: string
  state: PortalState
  domain: string | null
  /** The access token's expiry, ISO 8601. */
  expires: string | null
  /** Seconds until it (negative: ago). */
  expiresInSeconds: number | null
  /** When the pair was issued (its last refresh or install): `expires` less its lifetime, ISO 8601. */
  lastRefresh: string | null
  scope: string | null
  /** The application's status letter (`L`, `P`, ...). */
  status: string | null
  /** Why the refresh token was refused (`invalid_grant`), for a dead pair. */
  deadReason: string | null
  /** Who holds the refresh lock (`host:pid`), and for how much longer. */
  lock: { holder: string; ttlMs: number } | null
}

/** The state of what the store holds: `expiringWithinMs` before its expiry a valid pair counts as expiring. */
export function portalState(portal: StoredPortal, nowMs: number, expiringWithinMs: number): PortalState {
  if (!portal.pair) return 'uninstalled'
  if (portal.dead) return 'dead'
  const left = portal.pair.expires * 1000 - nowMs
  if (left <= 0) return 'expired'
  return left <= expiringWithinMs ? 'expiring' : 'valid'
}

/** The redacted line of one portal: built field by field, so nothing of the pair gets in by accident. */
export function portalReport(portal: StoredPortal, nowMs: number, expiringWithinMs: number): PortalReport {
  const { pair } = portal
  const iso = (seconds: number): string => new Date(seconds * 1000).toISOString()
  return {
    memberId: portal.memberId,
    state: portalState(portal, nowMs, expiringWithinMs),
    domain: pair?.domain ?? null,
    expires: pair ? iso(pair.expires) : null,
    expiresInSeconds: pair ? Math.round(pair.expires - nowMs / 1000) : null,
    lastRefresh: pair ? iso(pair.expires - pair.expiresIn) : null,
    scope: pair?.scope ?? null,
    status: pair?.status ?? null,
    deadReason: portal.dead ? portal.dead.code : null,
    lock: portal.lock,
  }
}

/** How many portals are in each state, and in all. */
export function countStates(reports: readonly PortalReport[]): Record<PortalState | 'total', number> {
  const counts = Object.fromEntries(PORTAL_STATES.map((state) => [state, 0])) as Record<
    PortalState | 'total',
    number
  >
  for (const report of reports) counts[report.state] += 1
  counts.total = reports.length
  return counts
}

/** `1h 5m`, `42s`, `-3m` (ago). */
function duration(seconds: number): string {
  const sign = seconds < 0 ? '-' : ''
  let left = Math.abs(seconds)
  const days = Math.floor(left / 86_400)
  left -= days * 86_400
  const hours = Math.floor(left / 3_600)
  left -= hours * 3_600
  const minutes = Math.floor(left / 60)
  if (days > 0) return `${sign}${days}d ${hours}h`
  if (hours > 0) return `${sign}${hours}h ${minutes}m`
  if (minutes > 0) return `${sign}${minutes}m`
  return `${sign}${left}s`
}

/** The counts as one sentence: `3 portals: 1 valid, 1 expiring, 0 expired, 1 dead, 0 uninstalled`. */
export function countsLine(counts: Record<PortalState | 'total', number>): string {
  const parts = PORTAL_STATES.map((state) => `${counts[state]} ${state}`)
  return `${counts.total} portal${counts.total === 1 ? '' : 's'}: ${parts.join(', ')}`
}

/** The reports as a table for a terminal, the counts below it. */
export function reportTable(reports: readonly PortalReport[]): string {
  const header = ['MEMBER', 'DOMAIN', 'STATE', 'EXPIRES IN', 'LAST REFRESH', 'SCOPE', 'LOCK']
  const rows = reports.map((report) => [
    report.memberId,
    report.domain ?? '-',
    report.deadReason ? `dead (${report.deadReason})` : report.state,
    report.expiresInSeconds === null ? '-' : duration(report.expiresInSeconds),
    report.lastRefresh?.replace(/\.\d{3}Z$/, 'Z') ?? '-',
    report.scope ?? '-',
    report.lock ? `${report.lock.holder} (${Math.ceil(report.lock.ttlMs / 1000)}s)` : '-',
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  )
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd()
  return `${[line(header), ...rows.map(line)].join('\n')}\n\n${countsLine(countStates(reports))}\n`
}
