import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryLogger, type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

describe('setAuthOptions()', () => {
  it('says in the log that the pair was replaced, with its expiry and no token', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const next = rig.emulator.issueAuthParams()
    rig.portal.setAuthOptions(next)
    expect(logger.lines.filter((line) => line.level === 'info')).toEqual([
      { level: 'info', message: 'token pair replaced', context: { expires: next.expires } },
    ])
    expect(JSON.stringify(logger.lines)).not.toContain(next.accessToken)
  })

  it("the new pair's tokens and application token are secrets from then on: redacted from the log and from errors", async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, refreshRetries: 0 } })
    const next = rig.emulator.issueAuthParams()
    const replaced = { ...next, applicationToken: 'app-token-after-reinstall-0123456789' }
    rig.portal.setAuthOptions(replaced)
    // An application's refresh that puts what it knows into its error, as careless code does.
    rig.portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      throw new Error(`refused ${refreshToken}, ${replaced.accessToken}, ${replaced.applicationToken}`)
    })
    await rig.portal.auth.refreshAuth().catch(() => undefined)
    const written = JSON.stringify(logger.lines)
    expect(written).toContain('refused [redacted]')
    for (const secret of [replaced.refreshToken, replaced.accessToken, replaced.applicationToken])
      expect(written).not.toContain(secret)
  })
})
