import { request as undiciRequest } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import {
  AjaxError,
  type FetchLike,
  PortalHook,
  PortalOAuth,
  type PortalOAuthParams,
  SdkError,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, type Rig, startRig } from '../helpers.js'

// Each mistake below is the caller's: it is refused before anything is sent, with one SdkError naming the field.

let rig: Rig | undefined
let emulator: PortalEmulator | undefined
afterEach(async () => {
  await rig?.close()
  await emulator?.close()
  rig = undefined
  emulator = undefined
})

/** The rejection of `promise` (or the throw of `run`), failing the test when there is none. */
async function refusal(run: () => unknown): Promise<SdkError> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError)
    return error as SdkError
  }
  throw new Error('expected a refusal, got none')
}

/** Asserts a local refusal: `JSSDK_INVALID_ARGUMENT`, not a transport error (so no attempt), message matching. */
function expectRefused(error: SdkError, message: RegExp): void {
  expect(error).not.toBeInstanceOf(AjaxError)
  expect(error.code).toBe('JSSDK_INVALID_ARGUMENT')
  expect(error.message).toMatch(message)
}

/** Starts a rig whose logger keeps every line (debug included), and fast retries so old behaviour stays short. */
async function loggedRig(): Promise<{ rig: Rig; lines: ReturnType<typeof createMemoryLogger>['lines'] }> {
  const logger = createMemoryLogger()
  rig = await startRig({ client: { logger, restrictionParams: { retryDelay: 10 } } })
  return { rig, lines: logger.lines }
}

describe('CR/LF in requestId or a header; timeout above 2^31-1: refused before anything is sent', () => {
  const badRequestIds: [string, string, RegExp][] = [
    ['CR LF', 'abc\r\nX-Injected: 1', /requestId must not contain .*U\+000D at position 3/],
    ['LF', 'abc\ndef', /requestId must not contain .*U\+000A/],
    ['NUL', 'abc\0', /requestId must not contain .*U\+0000/],
    ['a bell', 'abc\u0007', /requestId must not contain .*U\+0007/],
    ['DEL', 'abc\u007f', /requestId must not contain .*U\+007F/],
    ['a character above U+00FF', 'näme✓', /requestId must not contain .*U\+2713/],
  ]
  for (const [name, requestId, message] of badRequestIds) {
    it(`requestId with ${name}: JSSDK_INVALID_ARGUMENT, nothing sent, no attempt`, async () => {
      const { rig, lines } = await loggedRig()
      for (const version of ['v2', 'v3'] as const) {
        const error = await refusal(() =>
          rig.portal.actions[version].call.make({ unchecked: true, method: 'profile', requestId }),
        )
        expectRefused(error, message)
        expect(error.message).toMatch(new RegExp(`^${version} call: requestId`))
      }
      expect(rig.emulator.log.entries).toEqual([])
      expect(lines.filter((line) => line.message.includes('attempt failed'))).toEqual([])
    })
  }

  it('a batch or a list with CR/LF in its requestId is refused the same way, before any page or command', async () => {
    const { rig } = await loggedRig()
    const requestId = 'run\r\nX-Injected: 1'
    const attempts: [RegExp, () => Promise<unknown>][] = [
      [
        /^v2 batch: options\.requestId must not contain CR, LF/,
        () => rig.portal.actions.v2.batch.make({ calls: [['user.current']], options: { requestId } }),
      ],
      [
        /^v3 batch: options\.requestId must not contain CR, LF/,
        () => rig.portal.actions.v3.batch.make({ calls: [['tasks.task.list']], options: { requestId } }),
      ],
      [
        /^v3 call: requestId must not contain CR, LF/,
        () => rig.portal.actions.v3.callList.make({ method: 'tasks.task.list', requestId }),
      ],
    ]
    for (const [message, run] of attempts) expectRefused(await refusal(run), message)
    expect(rig.emulator.log.entries).toEqual([])
  })

  it('a tab and Latin-1 letters are fine in a requestId and a header value', async () => {
    const { rig } = await loggedRig()
    const result = await rig.portal.actions.v2.call.make({
      method: 'profile',
      requestId: 'batch\t\u00e9t\u00e9',
      headers: { 'x-note': 'caf\u00e9 ok' },
    })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('a header value with CR, LF, NUL or a control character is refused, naming the header, never the value', async () => {
    const { rig } = await loggedRig()
    const secretish = 'token-4f9a1c'
    for (const value of [
      `${secretish}\r\nx: y`,
      `${secretish}\n`,
      `${secretish}\0`,
      `${secretish}\u001b[0m`,
    ]) {
      const error = await refusal(() =>
        rig.portal.actions.v3.call.make({ method: 'tasks.task.list', headers: { 'x-trace': value } }),
      )
      expectRefused(error, /^v3 call: headers\.x-trace must not contain CR, LF, NUL/)
      expect(error.message).not.toContain(secretish)
    }
    expect(rig.emulator.log.entries).toEqual([])
  })

  const badNames = ['x trace', 'x:trace', '', 'x\r\ny', 'caf\u00e9', 'x(y)']
  for (const header of badNames) {
    it(`a header name ${JSON.stringify(header)} is refused: names are RFC 9110 tokens`, async () => {
      const { rig } = await loggedRig()
      const error = await refusal(() =>
        rig.portal.actions.v2.call.make({ method: 'profile', headers: { [header]: 'v' } }),
      )
      expectRefused(error, /^v2 call: headers\[".*"\] must be an HTTP header name/)
      expect(error.message).not.toMatch(/[\r\n]/)
      expect(rig.emulator.log.entries).toEqual([])
    })
  }

  const badTimeouts: [number, RegExp][] = [
    [2 ** 31, /timeout must be an integer from 1 to 600000 ms \(10 minutes\), got 2147483648/],
    [3e9, /timeout must be an integer from 1 to 600000 ms \(10 minutes\), got 3000000000/],
    [600_001, /timeout must be an integer from 1 to 600000 ms/],
    [1.5, /timeout must be an integer from 1 to 600000 ms/],
    [0, /timeout must be an integer from 1 to 600000 ms/],
    [Number.NaN, /timeout must be an integer from 1 to 600000 ms.*got NaN/],
  ]
  for (const [timeout, message] of badTimeouts) {
    it(`a call timeout of ${timeout} is refused at once, naming the cap`, async () => {
      const { rig, lines } = await loggedRig()
      const error = await refusal(() => rig.portal.actions.v2.call.make({ method: 'profile', timeout }))
      expectRefused(error, message)
      expect(rig.emulator.log.entries).toEqual([])
      expect(lines.filter((line) => line.message.includes('attempt failed'))).toEqual([])
    })
  }

  it('the cap itself is accepted: a call with timeout 600000 succeeds', async () => {
    const { rig } = await loggedRig()
    expect((await rig.portal.actions.v2.call.make({ method: 'profile', timeout: 600_000 })).isSuccess).toBe(
      true,
    )
  })

  it('httpOptions: bad headers, a timeout or keep-alive above the cap are refused at construction', async () => {
    emulator = await startPortalEmulator()
    const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ headers: { 'x-app': 'a\r\nb' } }, /^httpOptions\.headers\.x-app must not contain CR, LF, NUL/],
      [{ headers: { 'x app': 'a' } }, /^httpOptions\.headers\["x app"\] must be an HTTP header name/],
      [{ timeout: 2 ** 31 }, /^httpOptions\.timeout must be an integer from 1 to 600000 ms \(10 minutes\)/],
      [{ keepAliveTimeout: 3e9 }, /^httpOptions\.keepAliveTimeout must be an integer from 1 to 600000 ms/],
    ]
    for (const [httpOptions, message] of cases) {
      const error = await refusal(
        () =>
          new PortalOAuth(emulator!.issueAuthParams(), credentials, { httpOptions: httpOptions as never }),
      )
      expectRefused(error, message)
    }
    expect(emulator.log.entries).toEqual([])
  })
})

describe('a local failure before sending is not retried as if the network had said so', () => {
  // An application's own adapter may refuse a request before it leaves; sending it again fails the same way.
  const adapters: [string, FetchLike][] = [
    [
      'a TypeError from Headers',
      async (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init)
        request.headers.set('x-trace', 'a\nb')
        return globalThis.fetch(request)
      },
    ],
    [
      "undici's argument validation (UND_ERR_INVALID_ARG)",
      async (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init)
        try {
          const answer = await undiciRequest(request.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-trace': 'a\r\nb' },
            body: await request.text(),
          })
          return new Response(await answer.body.text(), { status: answer.statusCode })
        } catch (cause) {
          throw new TypeError('fetch failed', { cause })
        }
      },
    ],
  ]
  for (const [name, adapter] of adapters) {
    it(`${name}: one attempt, nothing sent`, async () => {
      rig = await startRig({ client: { httpOptions: { adapter }, restrictionParams: { retryDelay: 10 } } })
      const error = await refusal(() => rig!.portal.actions.v2.call.make({ method: 'profile' }))
      expect(error).toBeInstanceOf(AjaxError)
      expect(error).toMatchObject({ code: 'NETWORK_ERROR', attempts: 1 })
      expect(error.message).toMatch(/refused before sending/)
      expect(rig.emulator.log.restRequests()).toEqual([])
    })
  }
})

describe('retryDelay: 3e9; user:pass@ in an endpoint; remote http:// endpoint', () => {
  const badLimits: [Record<string, unknown>, RegExp][] = [
    [
      { retryDelay: 3e9 },
      /^restrictionParams\.retryDelay must be an integer from 0 to 300000 ms \(5 minutes\)/,
    ],
    [{ retryDelay: 2.5 }, /^restrictionParams\.retryDelay must be an integer/],
    [{ maxRetries: 11 }, /^restrictionParams\.maxRetries must be an integer from 0 to 10, got 11/],
    [
      { adaptiveConfig: { maxDelay: 3e9 } },
      /^restrictionParams\.adaptiveConfig\.maxDelay must be an integer from 0 to 300000 ms \(5 minutes\)/,
    ],
    [
      { operatingLimit: { windowMs: 2 ** 31 } },
      /^restrictionParams\.operatingLimit\.windowMs must be an integer from 1 to 3600000 ms \(1 hour\)/,
    ],
    [
      { operatingLimit: { limitMs: 0 } },
      /^restrictionParams\.operatingLimit\.limitMs must be an integer from 1 to 3600000 ms/,
    ],
    [{ rateLimit: 5 }, /^restrictionParams\.rateLimit must be an object/],
  ]
  for (const [restrictionParams, message] of badLimits) {
    it(`restrictionParams ${JSON.stringify(restrictionParams)} is refused at construction and at run time`, async () => {
      emulator = await startPortalEmulator()
      const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
      const error = await refusal(
        () => new PortalOAuth(emulator!.issueAuthParams(), credentials, { restrictionParams }),
      )
      expectRefused(error, message)

      const portal = new PortalOAuth(emulator.issueAuthParams(), credentials, {
        logger: createMemoryLogger(),
      })
      const before = portal.getRestrictionManagerParams()
      expectRefused(await refusal(() => portal.setRestrictionManagerParams(restrictionParams)), message)
      expect(portal.getRestrictionManagerParams()).toEqual(before)
      expect(emulator.log.entries).toEqual([])
      await portal.destroy()
    })
  }

  it('unknown restrictionParams keys are dropped and warned, at construction and in setRestrictionManagerParams', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({
      client: {
        logger,
        restrictionParams: { retryDelai: 5, rateLimit: { burst: 3, drainRate: 4 } } as never,
      },
    })
    rig.portal.setRestrictionManagerParams({
      maxRetry: 1,
      adaptiveConfig: { max: 1, enabled: false },
    } as never)
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'restrictionParams: dropped unknown option(s) retryDelai, rateLimit.burst',
      'setRestrictionManagerParams: dropped unknown option(s) maxRetry, adaptiveConfig.max',
    ])
    const params = rig.portal.getRestrictionManagerParams()
    expect(params.rateLimit.drainRate).toBe(4)
    expect(params.adaptiveConfig.enabled).toBe(false)
    expect(params.rateLimit).not.toHaveProperty('burst')
    expect(params).not.toHaveProperty('maxRetry')
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  const withCredentials = (endpoint: string) => endpoint.replace('http://', 'http://admin:hunter2-pw@')

  it('user:pass@ in clientEndpoint or serverEndpoint is refused without echoing it', async () => {
    emulator = await startPortalEmulator()
    const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
    for (const field of ['clientEndpoint', 'serverEndpoint'] as const) {
      const params = emulator.issueAuthParams()
      const bad = { ...params, [field]: withCredentials(params[field]) }
      const error = await refusal(() => new PortalOAuth(bad, credentials))
      expectRefused(error, new RegExp(`^PortalOAuth: authOptions\\.${field} must not carry user credentials`))
      const shown = `${error.message}${error.stack}${JSON.stringify(error)}${String(error.cause)}`
      expect(shown).not.toContain('hunter2-pw')
      expect(shown).not.toContain('admin:')
      expect(error.cause).toBeUndefined()
    }
    expect(emulator.log.entries).toEqual([])
  })

  it('setAuthOptions() with user:pass@ is refused the same way and keeps the pair in use', async () => {
    rig = await startRig()
    const held = rig.portal.auth.getParams()
    const next: PortalOAuthParams = {
      ...rig.emulator.issueAuthParams(),
      clientEndpoint: withCredentials(rig.emulator.clientEndpoint),
    }
    const error = await refusal(() => rig!.portal.setAuthOptions(next))
    expectRefused(error, /^PortalOAuth: authOptions\.clientEndpoint must not carry user credentials/)
    expect(error.message).not.toContain('hunter2-pw')
    expect(rig.portal.auth.getParams()).toEqual(held)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests().map((entry) => entry.token)).toEqual([held.accessToken])
  })

  it('a webhook URL with user:pass@ is refused without echoing it', async () => {
    emulator = await startPortalEmulator()
    const url = emulator.createWebhook()
    for (const run of [
      () => PortalHook.fromWebhookUrl(withCredentials(url)),
      () => new PortalHook({ b24Url: withCredentials(new URL(url).origin), userId: 1, secret: 'abcdef123' }),
    ]) {
      const error = await refusal(run)
      expectRefused(error, /^PortalHook: (url|b24Url) must not carry user credentials/)
      expect(`${error.message}${error.stack}`).not.toContain('hunter2-pw')
    }
    expect(emulator.log.entries).toEqual([])
  })

  it('a remote http:// endpoint logs one warning per instance; calls and refreshes still work', async () => {
    emulator = await startPortalEmulator()
    const real = emulator.issueAuthParams()
    // A name resolver of our own: the "remote" hosts are the emulator's loopback ports.
    const hosts: Record<string, string> = {
      'portal.example.test': new URL(real.clientEndpoint).host,
      'oauth.example.test': new URL(real.serverEndpoint).host,
    }
    const adapter: FetchLike = async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init)
      const url = new URL(request.url)
      url.host = hosts[url.hostname] ?? url.host
      const body = await request.text()
      return globalThis.fetch(url, { method: request.method, headers: request.headers, body })
    }
    const logger = createMemoryLogger()
    const params: PortalOAuthParams = {
      ...real,
      clientEndpoint: 'http://portal.example.test/rest/',
      serverEndpoint: 'http://oauth.example.test/rest/',
    }
    const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
    const portal = new PortalOAuth(params, credentials, {
      logger,
      httpOptions: { adapter },
      oauthServers: ['http://oauth.example.test'],
    })
    try {
      expect((await portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      portal.setAuthOptions({ ...emulator.issueAuthParams(), clientEndpoint: params.clientEndpoint })
      // The OAuth server names the portal at the address the client reaches it by.
      emulator.mutateTokenResponses({ set: { client_endpoint: params.clientEndpoint } })
      await portal.auth.refreshAuth()
      const warnings = logger.lines.filter((line) => line.level === 'warn')
      expect(warnings.map((line) => line.message)).toEqual([
        expect.stringMatching(
          /^PortalOAuth: plain http to a remote host in authOptions\.clientEndpoint \(portal\.example\.test\), authOptions\.serverEndpoint \(oauth\.example\.test\): /,
        ),
      ])
      expect(JSON.stringify(warnings)).not.toContain(emulator.clientSecret)
      expect(emulator.log.refreshRequests()).toHaveLength(1)
    } finally {
      await portal.destroy()
    }
  })

  it('loopback http:// (127.0.0.0/8, ::1, localhost) and https:// say nothing', async () => {
    emulator = await startPortalEmulator()
    const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
    for (const origin of [
      'http://127.0.0.1:8080',
      'http://127.9.8.7',
      'http://[::1]:3000',
      'http://localhost:1',
      'https://portal.example.com',
    ]) {
      const logger = createMemoryLogger()
      const endpoint = `${origin}/rest/`
      const portal = new PortalOAuth(
        { ...emulator.issueAuthParams(), clientEndpoint: endpoint, serverEndpoint: endpoint },
        credentials,
        { logger, oauthServers: [origin] },
      )
      expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([])
      await portal.destroy()
    }
    const logger = createMemoryLogger()
    const hook = new PortalHook({ b24Url: 'http://127.5.5.5', userId: 1, secret: 'abcdef123' }, { logger })
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([])
    await hook.destroy()
  })
})
