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

  it('options that are no object, a logger without its methods, restrictionParams and idleTimeout out of shape', () => {
    const refusals: Array<[unknown, string]> = [
      [null, 'PortalFleet: takes an options object { oAuthSecret, store?, ... }'],
      [[], 'PortalFleet: takes an options object { oAuthSecret, store?, ... }'],
      ['options', 'PortalFleet: takes an options object { oAuthSecret, store?, ... }'],
      [
        { oAuthSecret, logger: {} },
        'PortalFleet: options.logger must have debug, info, warn and error functions',
      ],
      [{ oAuthSecret, restrictionParams: 5 }, 'restrictionParams must be an object; got number'],
      [
        { oAuthSecret, idleTimeout: 0 },
        'PortalFleet: options.idleTimeout must be an integer from 1 to 86400000 ms (24 hours), got 0',
      ],
    ]
    for (const [options, message] of refusals) {
      expect(() => new PortalFleet(options as never)).toThrow(
        expect.objectContaining({ code: SdkErrorCode.InvalidArgument, message }),
      )
    }
  })

  it('known options only: no warning; an unknown key is named, unless it quotes the client secret', async () => {
    const logger = createMemoryLogger()
    fleets.push(new PortalFleet({ oAuthSecret, logger, idleTimeout: 1_000, restrictionParams: {} }))
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([])
    fleets.push(new PortalFleet({ oAuthSecret, logger, [oAuthSecret.clientSecret]: 1 } as never))
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1)
    expect(JSON.stringify(logger.lines)).not.toContain(oAuthSecret.clientSecret)
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
