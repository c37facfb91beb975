import { expect } from 'vitest'
import type { RequestLogEntry } from '../src/testing/index.js'
import type { Rig } from './helpers.js'

/**
 * Every secret a rig has seen: the client secret, the pair the client holds, the emulator's newest pair and every
 * token presented on the wire so far (in a body, where it belongs).
 */
export function rigSecrets(rig: Pick<Rig, 'emulator' | 'portal'>): string[] {
  const params = rig.portal.auth.getParams()
  const onTheWire = rig.emulator.log.entries.map((entry) => entry.token)
  const all = [
    rig.emulator.clientSecret,
    params.accessToken,
    params.refreshToken,
    rig.emulator.currentAccessToken,
    rig.emulator.currentRefreshToken,
    ...onTheWire,
  ]
  return [...new Set(all.filter((secret): secret is string => typeof secret === 'string' && secret !== ''))]
}

/**
 * Asserts that each request carried nothing in its URL: the query is exactly empty, and no secret appears in the
 * path or anywhere in the query (names or values), decoded or not.
 */
export function expectNothingInUrl(
  entries: readonly (RequestLogEntry | undefined)[],
  secrets: string[],
): void {
  expect(entries.length).toBeGreaterThan(0)
  expect(secrets.length).toBeGreaterThan(0)
  for (const entry of entries) {
    expect(entry).toBeDefined()
    if (entry === undefined) continue
    expect(entry.query).toEqual({})
    const query = Object.entries(entry.query).flat().join('&')
    const url = `${entry.path}?${query} ${safeDecode(entry.path)}`
    for (const secret of secrets) expect(url).not.toContain(secret)
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
