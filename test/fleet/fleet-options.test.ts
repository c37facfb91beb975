import { afterEach, describe, expect, it } from 'vitest'
import { PortalFleet, SdkErrorCode } from '../../src/index.js'
import { createMemoryLogger } from '../helpers.js'

// What PortalFleet says about options it refuses or ignores, and about a member id that is none.

const oAuthSecret = { clientId: 'client-id', clientSecret: 'client-secret-value' }
const fleets: PortalFleet[] = []
afterEach(async () => {
  await Promise.all(fleets.splice(0).map((fleet) => fleet.destroy()))
})

describe('PortalFleet options', () => {
  it('a callbackRefreshAuth that is no function is refused, naming it', () => {
    expect(() => new PortalFleet({ oAuthSecret, callbackRefreshAuth: 'persist' } as never)).toThrow(
      expect.objectContaining({
        code: SdkErrorCode.InvalidArgument,
        message: 'PortalFleet: options.callbackRefreshAuth must be a function',
      }),
    )
  })

  it('unknown restrictionParams keys are named in one warning', async () => {
    const logger = createMemoryLogger()
    const fleet = new PortalFleet({ oAuthSecret, logger, restrictionParams: { burst: 5, drain: 1 } } as never)
    fleets.push(fleet)
    expect(logger.lines).toContainEqual({
      level: 'warn',
      message: 'PortalFleet: restrictionParams: ignored unknown option(s) burst, drain',
    })
  })

  it('get() of something that is no member id is refused, saying what a member id is', async () => {
    const fleet = new PortalFleet({ oAuthSecret })
    fleets.push(fleet)
    for (const memberId of ['', 'a b', '{a}', 'x'.repeat(65), 42]) {
      await expect(fleet.get(memberId as never)).rejects.toMatchObject({
        code: SdkErrorCode.InvalidArgument,
        message: 'PortalFleet.get: memberId must be a member id (letters, digits, - and _)',
      })
    }
  })
})
