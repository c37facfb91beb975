import { describe, expect, it } from 'vitest'
import {
  EnumAppStatus,
  ParamsFactory,
  PortalOAuth,
  type PortalOAuthParams,
  SdkError,
} from '../../src/index.js'

const valid: PortalOAuthParams = {
  applicationToken: 'app-token-0123456789abcdef',
  userId: 1,
  memberId: 'a223c6b3710f85df22e9377d6c4f7553',
  accessToken: 'access-token-0123456789',
  refreshToken: 'refresh-token-0123456789',
  expires: 1_780_319_382,
  expiresIn: 3600,
  scope: 'crm,task',
  domain: 'portal.example.com',
  clientEndpoint: 'https://portal.example.com/rest/',
  serverEndpoint: 'https://oauth.bitrix.info/rest/',
  status: EnumAppStatus.Local,
}
const secret = { clientId: 'local.1.2', clientSecret: 'client-secret-value' }

function construct(params: unknown, credentials: unknown = secret): unknown {
  try {
    return new PortalOAuth(params as PortalOAuthParams, credentials as typeof secret)
  } catch (error) {
    return error
  }
}

describe('construction fails fast on bad input, naming the field', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'missing accessToken',
      { accessToken: undefined },
      /authOptions\.accessToken must be a non-empty string; it is missing/,
    ],
    [
      'empty refreshToken',
      { refreshToken: '' },
      /authOptions\.refreshToken must be a non-empty string; it is empty/,
    ],
    ['empty applicationToken', { applicationToken: '' }, /authOptions\.applicationToken/],
    [
      'relative clientEndpoint',
      { clientEndpoint: '/rest/' },
      /authOptions\.clientEndpoint must be an absolute URL ending in \/rest\//,
    ],
    [
      'clientEndpoint without /rest/',
      { clientEndpoint: 'https://portal.example.com/api/' },
      /authOptions\.clientEndpoint must end in \/rest\//,
    ],
    [
      'serverEndpoint not a URL',
      { serverEndpoint: 'oauth' },
      /authOptions\.serverEndpoint must be an absolute URL/,
    ],
    [
      'expires in milliseconds',
      { expires: 1_780_319_382_000 },
      /authOptions\.expires looks like milliseconds \(1780319382000\); pass a Unix time in seconds \(1780319382\)/,
    ],
    [
      'expires as a string',
      { expires: '1780319382' },
      /authOptions\.expires must be a Unix time in seconds; got string/,
    ],
    [
      'a status that is not a letter',
      { status: 'paid' },
      /authOptions\.status must be one status letter such as F, D, T, P, L, S/,
    ],
    ['userId not an integer', { userId: 1.5 }, /authOptions\.userId must be a non-negative integer/],
  ]
  for (const [name, change, message] of cases) {
    it(name, () => {
      const error = construct({ ...valid, ...change })
      expect(error).toBeInstanceOf(SdkError)
      expect((error as SdkError).code).toBe('JSSDK_INVALID_ARGUMENT')
      expect((error as SdkError).message).toMatch(message)
    })
  }

  it('missing credentials', () => {
    expect(construct(valid, { clientId: 'x' })).toMatchObject({
      message: expect.stringMatching(/oAuthSecret\.clientSecret must be a non-empty string; it is missing/),
    })
    expect(construct(valid, { clientId: '', clientSecret: 's' })).toMatchObject({
      message: expect.stringMatching(/oAuthSecret\.clientId .* it is empty/),
    })
    expect(construct(valid, null)).toBeInstanceOf(SdkError)
  })

  it('never echoes a token in the message', () => {
    const error = construct({
      ...valid,
      clientEndpoint: 'nope',
      accessToken: 'secret-access-token-xyz',
    }) as Error
    expect(error.message).not.toContain('secret-access-token-xyz')
  })

  it('bad restriction params name the field', () => {
    expect(
      () => new PortalOAuth(valid, secret, { restrictionParams: { rateLimit: { drainRate: -1 } } }),
    ).toThrow(/restrictionParams\.rateLimit\.drainRate must be at least 0\.001, got -1/)
    expect(() => new PortalOAuth(valid, secret, { restrictionParams: { maxRetries: Number.NaN } })).toThrow(
      /restrictionParams\.maxRetries must be an integer from 0 to 10, got NaN/,
    )
  })
})

describe('what bad token data says, word for word', () => {
  const field = (name: string, rule: string) => `PortalOAuth: authOptions.${name} ${rule}`
  const rest = 'must be an absolute URL ending in /rest/'
  const cases: Array<[string, unknown, string]> = [
    ['no authOptions', undefined, 'PortalOAuth: authOptions must be an object; it is missing'],
    ['null authOptions', null, 'PortalOAuth: authOptions must be an object; got object'],
    [
      'a blank accessToken',
      { ...valid, accessToken: '  ' },
      field('accessToken', 'must be a non-empty string; got string'),
    ],
    [
      'a numeric memberId',
      { ...valid, memberId: 5 },
      field('memberId', 'must be a non-empty string; got number'),
    ],
    [
      'a negative userId',
      { ...valid, userId: -1 },
      field('userId', 'must be a non-negative integer; got number'),
    ],
    [
      'no userId',
      { ...valid, userId: undefined },
      field('userId', 'must be a non-negative integer; it is missing'),
    ],
    [
      'expires NaN',
      { ...valid, expires: Number.NaN },
      field('expires', 'must be a Unix time in seconds; got number'),
    ],
    [
      'expires Infinity',
      { ...valid, expires: Number.POSITIVE_INFINITY },
      field('expires', 'must be a Unix time in seconds; got number'),
    ],
    ['a negative expires', { ...valid, expires: -1 }, field('expires', 'must not be negative, got -1')],
    [
      'expires just past the seconds range',
      { ...valid, expires: 100_000_000_001 },
      field('expires', 'looks like milliseconds (100000000001); pass a Unix time in seconds (100000000)'),
    ],
    [
      'a negative expiresIn',
      { ...valid, expiresIn: -1 },
      field('expiresIn', 'must be a number of seconds; got number'),
    ],
    [
      'expiresIn as a string',
      { ...valid, expiresIn: '3600' },
      field('expiresIn', 'must be a number of seconds; got string'),
    ],
    [
      'expiresIn Infinity',
      { ...valid, expiresIn: Number.POSITIVE_INFINITY },
      field('expiresIn', 'must be a number of seconds; got number'),
    ],
    [
      'a numeric scope',
      { ...valid, scope: 5 },
      field('scope', 'must be a comma-separated string; got number'),
    ],
    ['an empty domain', { ...valid, domain: '' }, field('domain', 'must be a non-empty string; it is empty')],
    [
      'a numeric clientEndpoint',
      { ...valid, clientEndpoint: 5 },
      field('clientEndpoint', `${rest}; got number`),
    ],
    [
      'an empty serverEndpoint',
      { ...valid, serverEndpoint: '' },
      field('serverEndpoint', `${rest}; it is empty`),
    ],
    [
      'a clientEndpoint that is no URL',
      { ...valid, clientEndpoint: 'portal' },
      field('clientEndpoint', `${rest}, got "portal"`),
    ],
    [
      'a clientEndpoint that is no URL but holds an @',
      { ...valid, clientEndpoint: 'secret@portal' },
      field('clientEndpoint', `${rest}, it is not one`),
    ],
    [
      'an ftp clientEndpoint',
      { ...valid, clientEndpoint: 'ftp://portal.example.com/rest/' },
      field('clientEndpoint', 'must use http or https, got ftp:'),
    ],
    [
      'a clientEndpoint with a query',
      { ...valid, clientEndpoint: 'https://portal.example.com/rest/?a=1' },
      field('clientEndpoint', 'must not have a query or a fragment'),
    ],
    [
      'a serverEndpoint with a fragment',
      { ...valid, serverEndpoint: 'https://oauth.bitrix.info/rest/#a' },
      field('serverEndpoint', 'must not have a query or a fragment'),
    ],
    [
      'a serverEndpoint under /rest without the slash',
      { ...valid, serverEndpoint: 'https://oauth.bitrix.info/rest' },
      field('serverEndpoint', 'must end in /rest/, got "https://oauth.bitrix.info/rest"'),
    ],
    [
      'a lower-case status',
      { ...valid, status: 'l' },
      field('status', 'must be one status letter such as F, D, T, P, L, S (EnumAppStatus), got "l"'),
    ],
    [
      'two status letters',
      { ...valid, status: 'LL' },
      field('status', 'must be one status letter such as F, D, T, P, L, S (EnumAppStatus), got "LL"'),
    ],
    [
      'no status',
      { ...valid, status: undefined },
      field('status', 'must be one status letter such as F, D, T, P, L, S (EnumAppStatus), got undefined'),
    ],
  ]
  it.each(cases)('%s', (_name, params, message) => {
    const error = construct(params)
    expect(error).toBeInstanceOf(SdkError)
    expect(error).toMatchObject({ code: 'JSSDK_INVALID_ARGUMENT', message })
  })

  it('credentials: an object of two non-empty strings', () => {
    expect(construct(valid, null)).toMatchObject({
      message: 'PortalOAuth: oAuthSecret must be an object; got object',
    })
    expect(construct(valid, { clientId: 'x', clientSecret: 5 })).toMatchObject({
      message: 'PortalOAuth: oAuthSecret.clientSecret must be a non-empty string; got number',
    })
  })

  it('takes the edges of each range and normalises what it keeps', async () => {
    const portal = new PortalOAuth(
      {
        ...valid,
        userId: 0,
        expires: 1_780_319_382.9,
        expiresIn: 0,
        scope: undefined as unknown as string,
        status: 'Z' as never,
        clientEndpoint: 'HTTPS://Portal.Example.com/rest/',
      },
      secret,
    )
    expect(portal.auth.getParams()).toMatchObject({
      userId: 0,
      expires: 1_780_319_382,
      expiresIn: 0,
      scope: '',
      status: 'Z',
      clientEndpoint: 'https://portal.example.com/rest/',
    })
    await portal.destroy()
    const edge = new PortalOAuth({ ...valid, expires: 100_000_000_000 }, secret)
    expect(edge.auth.getParams().expires).toBe(100_000_000_000)
    await edge.destroy()
  })
})

describe('refresh options are checked at construction, naming the option and its range', () => {
  const ranges: Array<[string, number, number]> = [
    ['eagerRefreshMs', 0, 3_600_000],
    ['refreshTimeout', 1, 600_000],
    ['callbackTimeout', 1, 600_000],
    ['refreshRetries', 0, 10],
    ['refreshRetryDelay', 1, 60_000],
  ]
  for (const [option, min, max] of ranges) {
    it(`${option}: ${min} and ${max} are accepted; ${min - 1}, ${max + 1}, 1.5 and a string are not`, async () => {
      for (const value of [min, max]) {
        const portal = new PortalOAuth(valid, secret, { [option]: value })
        await portal.destroy()
      }
      for (const value of [min - 1, max + 1, 1.5, '5']) {
        const error = construct3({ [option]: value })
        expect(error).toBeInstanceOf(SdkError)
        expect((error as SdkError).code).toBe('JSSDK_INVALID_ARGUMENT')
        expect((error as SdkError).message).toBe(
          `PortalOAuth: options.${option} must be an integer from ${min} to ${max}, got ${String(value)}`,
        )
      }
    })
  }

  it('lockTtl must outlive the refresh timeout, two minutes at most', async () => {
    expect(construct3({ refreshTimeout: 5_000, lockTtl: 5_000 })).toMatchObject({
      message: 'PortalOAuth: options.lockTtl must be an integer from 5001 to 120000, got 5000',
    })
    expect(construct3({ lockTtl: 120_001 })).toMatchObject({
      message: 'PortalOAuth: options.lockTtl must be an integer from 10001 to 120000, got 120001',
    })
    for (const options of [{ refreshTimeout: 5_000, lockTtl: 5_001 }, { lockTtl: 120_000 }]) {
      const portal = new PortalOAuth(valid, secret, options)
      await portal.destroy()
    }
  })
})

function construct3(options: Record<string, unknown>): unknown {
  try {
    return new PortalOAuth(valid, secret, options)
  } catch (error) {
    return error
  }
}

describe('a valid instance', () => {
  it('is initialised at once and derives its origins from clientEndpoint', async () => {
    const portal = new PortalOAuth(valid, secret)
    expect(portal.isInit).toBe(true)
    expect(portal.getTargetOrigin()).toBe('https://portal.example.com')
    expect([...portal.getTargetOriginWithPath()]).toEqual([
      ['v2', 'https://portal.example.com/rest/'],
      ['v3', 'https://portal.example.com/rest/api/'],
    ])
    expect(portal.auth.getUniq('app')).toBe('app_a223c6b3710f85df22e9377d6c4f7553')
    await portal.destroy()
  })

  it('throws the spec error when isAdmin is read before initIsAdmin()', async () => {
    const portal = new PortalOAuth(valid, secret)
    let thrown: unknown
    try {
      void portal.auth.isAdmin
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(SdkError)
    expect(thrown).toMatchObject({
      code: 'JSSDK_OAUTH_IS_ADMIN_NOT_INIT',
      message: 'isAdmin not init. You need call B24OAuth::initIsAdmin().',
    })
    await portal.destroy()
  })

  it('restriction params: defaults, enterprise, and partial changes keep the rest', async () => {
    expect(ParamsFactory.getDefault()).toEqual({
      rateLimit: { burstLimit: 50, drainRate: 2, adaptiveEnabled: true },
      operatingLimit: { windowMs: 600_000, limitMs: 480_000, heavyPercent: 80 },
      adaptiveConfig: { enabled: true, thresholdPercent: 80, coefficient: 0.01, maxDelay: 7_000 },
      maxRetries: 3,
      retryDelay: 1_000,
      retryOnNetworkError: true,
    })
    expect(ParamsFactory.getEnterprise().rateLimit).toMatchObject({ burstLimit: 250, drainRate: 5 })
    const portal = new PortalOAuth(valid, secret, { restrictionParams: { rateLimit: { burstLimit: 10 } } })
    expect(portal.getRestrictionManagerParams().rateLimit).toEqual({
      burstLimit: 10,
      drainRate: 2,
      adaptiveEnabled: true,
    })
    portal.setRestrictionManagerParams({ adaptiveConfig: { maxDelay: 100 } })
    const params = portal.getRestrictionManagerParams()
    expect(params.adaptiveConfig).toEqual({
      enabled: true,
      thresholdPercent: 80,
      coefficient: 0.01,
      maxDelay: 100,
    })
    expect(params.rateLimit.burstLimit).toBe(10)
    expect(() => portal.setRestrictionManagerParams({ retryDelay: -5 })).toThrow(
      /restrictionParams\.retryDelay/,
    )
    await portal.destroy()
  })
})
