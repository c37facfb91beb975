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
