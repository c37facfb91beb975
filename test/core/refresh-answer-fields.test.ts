import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryLogger, type Rig, startRig } from '../helpers.js'

// How the client reads the fields of a refresh answer beside the pair: null means "not sent", a value of the wrong
// type is odd and repaired (listed in one warning, by name, never by value).

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

function repairedWarnings(logger: ReturnType<typeof createMemoryLogger>): string[] {
  return logger.lines
    .filter((line) => line.level === 'warn' && line.message.includes('odd fields'))
    .map((line) => line.message)
}

describe('the fields of a refresh answer', () => {
  it('null fields beside the pair are taken as not sent: previous values kept, nothing reported', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const before = rig.portal.auth.getParams()
    rig.emulator.mutateTokenResponses({ set: { scope: null, status: null, member_id: null, expires: null } })
    await rig.portal.auth.refreshAuth()
    const after = rig.portal.auth.getParams()
    expect(after).toMatchObject({ scope: before.scope, status: before.status, memberId: before.memberId })
    expect(after.refreshToken).toBe(rig.emulator.currentRefreshToken)
    expect(repairedWarnings(logger)).toEqual([])
  })

  it('an expires_in that is no number of seconds (true, -5, "soon") is repaired: the previous lifetime is kept', async () => {
    for (const odd of [true, -5, 'soon']) {
      const logger = createMemoryLogger()
      rig = await startRig({ client: { logger } })
      const before = rig.portal.auth.getParams()
      rig.emulator.mutateTokenResponses({ set: { expires_in: odd }, remove: ['expires'] })
      await rig.portal.auth.refreshAuth()
      const after = rig.portal.auth.getParams()
      expect(after.expiresIn).toBe(before.expiresIn)
      expect(after.expires - Math.floor(Date.now() / 1000)).toBeGreaterThan(before.expiresIn - 5)
      expect(repairedWarnings(logger)).toEqual(['token refresh answer had odd fields, repaired: expires_in'])
      await rig.close()
    }
  })
})
