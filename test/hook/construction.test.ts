import { afterEach, describe, expect, it } from 'vitest'
import { PortalHook, SdkError } from '../../src/index.js'
import { createMemoryLogger } from '../helpers.js'

const SECRET = 'k32t88gf3azpmwv3'
let hook: PortalHook | undefined
afterEach(async () => {
  await hook?.destroy()
  hook = undefined
})

function constructionError(make: () => unknown): SdkError {
  try {
    make()
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError)
    return error as SdkError
  }
  throw new Error('expected the constructor to throw')
}

describe('new PortalHook({ b24Url, userId, secret })', () => {
  it('takes the names of the vendor SDK and derives origin and REST roots without the secret', () => {
    hook = new PortalHook({ b24Url: 'https://portal.example.com/', userId: 123, secret: SECRET })
    expect(hook.isInit).toBe(true)
    expect(hook.getTargetOrigin()).toBe('https://portal.example.com')
    expect(hook.getTargetOriginWithPath()).toEqual(
      new Map([
        ['v2', 'https://portal.example.com/rest/'],
        ['v3', 'https://portal.example.com/rest/api/'],
      ]),
    )
    expect(typeof hook.actions.v2.callList.make).toBe('function')
    expect(typeof hook.actions.v3.fetchTail.make).toBe('function')
    expect(typeof hook.tools.ping.make).toBe('function')
  })

  it('reports options it does not know, including the OAuth-only clock', () => {
    const logger = createMemoryLogger()
    hook = new PortalHook({ b24Url: 'https://portal.example.com', userId: 1, secret: SECRET }, {
      logger,
      now: Date.now,
    } as never)
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'PortalHook: ignored unknown option(s) now',
    ])
  })

  it('fromWebhookUrl splits a v2 or v3 webhook URL, with or without the trailing slash', () => {
    for (const url of [
      `https://portal.example.com/rest/123/${SECRET}/`,
      `https://portal.example.com/rest/123/${SECRET}`,
      `https://portal.example.com/rest/api/123/${SECRET}/`,
    ]) {
      const made = PortalHook.fromWebhookUrl(url)
      expect(made.getTargetOrigin()).toBe('https://portal.example.com')
      void made.destroy()
    }
  })

  it.each([
    [
      'params',
      () => new PortalHook(undefined as unknown as { b24Url: string; userId: number; secret: string }),
    ],
    ['b24Url', () => new PortalHook({ b24Url: 'portal.example.com', userId: 1, secret: SECRET })],
    ['b24Url', () => new PortalHook({ b24Url: 'ftp://portal.example.com', userId: 1, secret: SECRET })],
    [
      'b24Url',
      () =>
        new PortalHook({
          b24Url: `https://portal.example.com/rest/1/${SECRET}/`,
          userId: 1,
          secret: SECRET,
        }),
    ],
    ['userId', () => new PortalHook({ b24Url: 'https://portal.example.com', userId: 0, secret: SECRET })],
    [
      'userId',
      () =>
        new PortalHook({
          b24Url: 'https://portal.example.com',
          userId: '1' as unknown as number,
          secret: SECRET,
        }),
    ],
    ['secret', () => new PortalHook({ b24Url: 'https://portal.example.com', userId: 1, secret: '' })],
    [
      'secret',
      () => new PortalHook({ b24Url: 'https://portal.example.com', userId: 1, secret: `${SECRET}/../x` }),
    ],
    ['secret', () => new PortalHook({ b24Url: 'https://portal.example.com', userId: 1, secret: 'abc' })],
    ['url', () => PortalHook.fromWebhookUrl(`https://portal.example.com/rest/1/${SECRET}/profile`)],
    ['url', () => PortalHook.fromWebhookUrl(`https://portal.example.com/rest/x/${SECRET}/`)],
    ['url', () => PortalHook.fromWebhookUrl(`not a url ${SECRET}`)],
  ])('bad %s: an SdkError naming the field that never shows the secret', (field, make) => {
    const error = constructionError(make)
    expect(error.code).toBe('JSSDK_INVALID_ARGUMENT')
    expect(error.message).toMatch(new RegExp(`^PortalHook: ${field} `))
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(SECRET)
  })

  it('warns when a remote portal is reached over plain http; loopback is fine', () => {
    const logger = createMemoryLogger()
    hook = new PortalHook({ b24Url: 'http://portal.example.com', userId: 1, secret: SECRET }, { logger })
    expect(logger.lines.map((line) => line.message)).toEqual([
      'PortalHook: the portal is reached over plain http, so the webhook secret travels unencrypted',
    ])
    const quiet = createMemoryLogger()
    void new PortalHook(
      { b24Url: 'http://127.0.0.1:8080', userId: 1, secret: SECRET },
      { logger: quiet },
    ).destroy()
    expect(quiet.lines).toEqual([])
  })
})

describe('what a bad webhook says, word for word', () => {
  const ORIGIN = 'https://portal.example.com'
  const make = (params: unknown) => () =>
    new PortalHook(params as { b24Url: string; userId: number; secret: string })
  const portal = 'PortalHook: b24Url must be the portal address such as https://portal.example.com'
  const code = "PortalHook: secret must be the webhook's code: at least 6 letters, digits, _ or -"
  const webhook = 'PortalHook: url must be a webhook URL such as https://portal.example.com/rest/1/secret/'
  const cases: Array<[string, () => unknown, string]> = [
    [
      'no params',
      make(undefined),
      'PortalHook: params must be an object { b24Url, userId, secret }; it is missing',
    ],
    [
      'null params',
      make(null),
      'PortalHook: params must be an object { b24Url, userId, secret }; got object',
    ],
    ['an array', make([]), 'PortalHook: params must be an object { b24Url, userId, secret }; got object'],
    ['no b24Url', make({ userId: 1, secret: SECRET }), `${portal}; it is missing`],
    ['an empty b24Url', make({ b24Url: '', userId: 1, secret: SECRET }), `${portal}; it is empty`],
    ['a blank b24Url', make({ b24Url: '  ', userId: 1, secret: SECRET }), `${portal}; got string`],
    ['a b24Url number', make({ b24Url: 5, userId: 1, secret: SECRET }), `${portal}; got number`],
    [
      'a relative b24Url',
      make({ b24Url: 'portal.example.com', userId: 1, secret: SECRET }),
      `${portal}; it is not an absolute URL`,
    ],
    [
      'an ftp b24Url',
      make({ b24Url: 'ftp://portal.example.com', userId: 1, secret: SECRET }),
      'PortalHook: b24Url must use http or https, got ftp:',
    ],
    [
      'a b24Url with user:password@',
      make({ b24Url: 'https://u:p@portal.example.com', userId: 1, secret: SECRET }),
      'PortalHook: b24Url must not carry user credentials (user:password@); remove them from the URL',
    ],
    ...(['/rest/', '?a=1', '#top'] as const).map((tail): [string, () => unknown, string] => [
      `a b24Url with ${tail}`,
      make({ b24Url: `${ORIGIN}${tail}`, userId: 1, secret: SECRET }),
      `${portal}, without a path, query or fragment; for a whole webhook URL use PortalHook.fromWebhookUrl`,
    ]),
    [
      'userId 0',
      make({ b24Url: ORIGIN, userId: 0, secret: SECRET }),
      'PortalHook: userId must be a positive integer; got 0',
    ],
    [
      'userId 1.5',
      make({ b24Url: ORIGIN, userId: 1.5, secret: SECRET }),
      'PortalHook: userId must be a positive integer; got 1.5',
    ],
    [
      'userId a string',
      make({ b24Url: ORIGIN, userId: '1', secret: SECRET }),
      'PortalHook: userId must be a positive integer; got string',
    ],
    [
      'no userId',
      make({ b24Url: ORIGIN, secret: SECRET }),
      'PortalHook: userId must be a positive integer; it is missing',
    ],
    ['no secret', make({ b24Url: ORIGIN, userId: 1 }), `${code}; it is missing`],
    ['an empty secret', make({ b24Url: ORIGIN, userId: 1, secret: '' }), `${code}; it is empty`],
    ['a secret number', make({ b24Url: ORIGIN, userId: 1, secret: 123456 }), `${code}; got number`],
    ['a 5-character secret', make({ b24Url: ORIGIN, userId: 1, secret: 'abcde' }), `${code}; it is not`],
    ['a secret with a dot', make({ b24Url: ORIGIN, userId: 1, secret: 'abc.def' }), `${code}; it is not`],
    ['no url', () => PortalHook.fromWebhookUrl(undefined as never), `${webhook}; it is missing`],
    ['an empty url', () => PortalHook.fromWebhookUrl(''), `${webhook}; it is empty`],
    ['a blank url', () => PortalHook.fromWebhookUrl(' '), `${webhook}; got string`],
    [
      'a relative url',
      () => PortalHook.fromWebhookUrl(`/rest/1/${SECRET}/`),
      `${webhook}; it is not an absolute URL`,
    ],
    [
      'a url with user:password@',
      () => PortalHook.fromWebhookUrl(`https://u:p@portal.example.com/rest/1/${SECRET}/`),
      'PortalHook: url must not carry user credentials (user:password@); remove them from the URL',
    ],
    [
      'a url with a method name',
      () => PortalHook.fromWebhookUrl(`${ORIGIN}/rest/1/${SECRET}/profile`),
      `${webhook}, without a method name, query or fragment`,
    ],
    [
      'a url with a query',
      () => PortalHook.fromWebhookUrl(`${ORIGIN}/rest/1/${SECRET}/?a=1`),
      `${webhook}, without a method name, query or fragment`,
    ],
    [
      'a url with a fragment',
      () => PortalHook.fromWebhookUrl(`${ORIGIN}/rest/1/${SECRET}/#a`),
      `${webhook}, without a method name, query or fragment`,
    ],
    [
      'a url under another path',
      () => PortalHook.fromWebhookUrl(`${ORIGIN}/x/rest/1/${SECRET}/`),
      `${webhook}, without a method name, query or fragment`,
    ],
    [
      'a url with bad percent-encoding',
      () => PortalHook.fromWebhookUrl(`${ORIGIN}/rest/1/abc%E0%A4%A/`),
      `${webhook}; its secret part is not valid percent-encoding`,
    ],
  ]
  it.each(cases)('%s', (_name, construct, message) => {
    const error = constructionError(construct)
    expect(error.code).toBe('JSSDK_INVALID_ARGUMENT')
    expect(error.message).toBe(message)
  })

  it('accepts trailing slashes and blanks around b24Url, and secrets of 6 letters, digits, _ and -', () => {
    for (const [b24Url, secret] of [
      [`${ORIGIN}//`, 'ab_-09'],
      [` ${ORIGIN} `, 'ABCdef'],
      [`${ORIGIN}/`, SECRET],
    ] as const) {
      const made = new PortalHook({ b24Url, userId: 7, secret })
      expect(made.getTargetOrigin()).toBe(ORIGIN)
      void made.destroy()
    }
  })
})
