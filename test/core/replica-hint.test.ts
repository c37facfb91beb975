import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import {
  MemoryStore,
  PortalOAuth,
  type PortalOAuthOptions,
  type PortalOAuthParams,
  RefreshTokenError,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, type LogLine } from '../helpers.js'

// Two replicas started from one saved pair, each keeping the pair to itself: the one that refreshes second is refused
// (`invalid_grant`). The error and one warning say why and where the docs tell what to do.

let emulator: PortalEmulator | undefined
const portals: PortalOAuth[] = []
afterEach(async () => {
  await Promise.all(portals.splice(0).map((portal) => portal.destroy()))
  await emulator?.close()
  emulator = undefined
})

const DOCS_LINK = 'docs/guide.md#sharing-a-portal-between-instances'

function replica(pair: PortalOAuthParams, options: PortalOAuthOptions = {}) {
  const logger = createMemoryLogger()
  const started = emulator as PortalEmulator
  const portal = new PortalOAuth(
    pair,
    { clientId: started.clientId, clientSecret: started.clientSecret },
    { logger, ...options },
  )
  portals.push(portal)
  return { portal, logger }
}

function warnings(lines: LogLine[]): LogLine[] {
  return lines.filter((line) => line.level === 'warn')
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces become hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const headings = markdown.split('\n').filter((line) => /^#{1,6} /.test(line))
  return new Set(
    headings.map((line) =>
      line
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  )
}

describe('two replicas without a shared store, started from one saved pair', () => {
  it('the second to refresh gets invalid_grant from the server, told that another instance spent the pair', async () => {
    emulator = await startPortalEmulator()
    const saved = emulator.issueAuthParams()
    const first = replica(saved)
    const second = replica(saved)
    emulator.expireAccessTokens()
    expect((await first.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    const error = await second.portal.actions.v2.call
      .make({ method: 'profile' })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(RefreshTokenError)
    // The OAuth server's fields, unchanged (contract 7).
    expect(error).toMatchObject({
      code: 'invalid_grant',
      description: 'The refresh token was already used',
      status: 400,
    })
    const message = (error as RefreshTokenError).message
    expect(message).toMatch(
      /^Refresh token error: invalid_grant \(The refresh token was already used\), HTTP 400\. /,
    )
    expect(message).toContain('another instance (a replica, another process) was started from the same pair')
    expect(message).toContain('need one shared store (options.store)')
    expect(message).toContain(DOCS_LINK)
    const [warning, ...more] = warnings(second.logger.lines)
    expect(more).toEqual([])
    expect(warning?.message).toContain('another instance started from the same pair')
    expect(warning?.message).toContain('MemoryStore in one process, RedisStore across processes')
    expect(warning?.context).toEqual({ code: 'invalid_grant', docs: DOCS_LINK })
    expect(warnings(first.logger.lines)).toEqual([])
  })

  it('warns once per instance: later refusals, also of a pair set again, carry the hint without a new warning', async () => {
    emulator = await startPortalEmulator()
    const saved = emulator.issueAuthParams()
    const first = replica(saved)
    const second = replica(saved)
    await first.portal.auth.refreshAuth()
    await expect(second.portal.auth.refreshAuth()).rejects.toThrow(DOCS_LINK)
    // The pair is dead: the next call is refused with the same error, no request is sent.
    await expect(second.portal.auth.refreshAuth()).rejects.toThrow(DOCS_LINK)
    // The same spent pair again: refused again by the server.
    second.portal.setAuthOptions(saved)
    await expect(second.portal.auth.refreshAuth()).rejects.toThrow(DOCS_LINK)
    expect(emulator.log.refreshRequests()).toHaveLength(3)
    expect(warnings(second.logger.lines)).toHaveLength(1)
  })

  it('the docs link names a section that exists in the docs shipped with the package', () => {
    const [file, anchor] = DOCS_LINK.split('#') as [string, string]
    const markdown = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
    expect(anchorsOf(markdown)).toContain(anchor)
  })
})

describe('no hint where it would mislead', () => {
  it('instances with a store of their own (counted as shared): the refusal as the server sent it, no warning', async () => {
    emulator = await startPortalEmulator()
    const saved = emulator.issueAuthParams()
    const first = replica(saved, { store: new MemoryStore() })
    const second = replica(saved, { store: new MemoryStore() })
    await first.portal.auth.refreshAuth()
    const error = await second.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(RefreshTokenError)
    expect(error).toMatchObject({
      code: 'invalid_grant',
      message: 'Refresh token error: invalid_grant (The refresh token was already used), HTTP 400',
    })
    expect(warnings(second.logger.lines)).toEqual([])
  })

  it('another OAuth refusal (invalid_client) on an instance without a store: no hint, no warning', async () => {
    emulator = await startPortalEmulator()
    const { portal, logger } = replica(emulator.issueAuthParams())
    emulator.failOAuth({ error: 'invalid_client', status: 401 })
    await expect(portal.auth.refreshAuth()).rejects.toMatchObject({
      code: 'invalid_client',
      message: 'Refresh token error: invalid_client, HTTP 401',
    })
    expect(warnings(logger.lines)).toEqual([])
  })

  it('a custom refresh that throws invalid_grant: its error is rethrown unchanged, no warning', async () => {
    emulator = await startPortalEmulator()
    const { portal, logger } = replica(emulator.issueAuthParams())
    const thrown = new RefreshTokenError({ code: 'invalid_grant', description: 'from my vault', status: 400 })
    portal.setCustomRefreshAuth(async () => {
      throw thrown
    })
    expect(await portal.auth.refreshAuth().catch((error: unknown) => error)).toBe(thrown)
    expect(warnings(logger.lines)).toEqual([])
  })
})
