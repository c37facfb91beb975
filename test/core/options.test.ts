import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDefaultLogger, type FetchLike } from '../../src/index.js'
import { createMemoryLogger, type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

describe('restrictionParams', () => {
  it('every known key is taken without a warning, and read back as given', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const all = {
      rateLimit: { burstLimit: 7, drainRate: 3, adaptiveEnabled: false },
      operatingLimit: { windowMs: 300_000, limitMs: 200_000, heavyPercent: 50 },
      adaptiveConfig: { enabled: false, thresholdPercent: 70, coefficient: 0.5, maxDelay: 1_000 },
      maxRetries: 2,
      retryDelay: 250,
      retryOnNetworkError: false,
    }
    rig.portal.setRestrictionManagerParams(all)
    expect(rig.portal.getRestrictionManagerParams()).toStrictEqual(all)
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([])
  })

  it('a bad value is refused naming its field, whichever field it is', async () => {
    rig = await startRig()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ rateLimit: { burstLimit: 0 } }, 'restrictionParams.rateLimit.burstLimit'],
      [{ rateLimit: { drainRate: 0 } }, 'restrictionParams.rateLimit.drainRate'],
      [{ rateLimit: { adaptiveEnabled: 'yes' } }, 'restrictionParams.rateLimit.adaptiveEnabled'],
      [{ operatingLimit: { windowMs: 0 } }, 'restrictionParams.operatingLimit.windowMs'],
      [{ operatingLimit: { limitMs: 0 } }, 'restrictionParams.operatingLimit.limitMs'],
      [{ operatingLimit: { heavyPercent: 101 } }, 'restrictionParams.operatingLimit.heavyPercent'],
      [{ adaptiveConfig: { enabled: 1 } }, 'restrictionParams.adaptiveConfig.enabled'],
      [{ adaptiveConfig: { thresholdPercent: -1 } }, 'restrictionParams.adaptiveConfig.thresholdPercent'],
      [{ adaptiveConfig: { coefficient: -1 } }, 'restrictionParams.adaptiveConfig.coefficient'],
      [{ adaptiveConfig: { maxDelay: -1 } }, 'restrictionParams.adaptiveConfig.maxDelay'],
      [{ maxRetries: 11 }, 'restrictionParams.maxRetries'],
      [{ retryDelay: -1 }, 'restrictionParams.retryDelay'],
      [{ retryOnNetworkError: 'no' }, 'restrictionParams.retryOnNetworkError'],
      [{ rateLimit: 5 }, 'restrictionParams.rateLimit'],
    ]
    for (const [params, field] of cases) {
      let caught: unknown
      try {
        rig.portal.setRestrictionManagerParams(params as never)
      } catch (error) {
        caught = error
      }
      expect(caught, field).toMatchObject({ code: 'JSSDK_INVALID_ARGUMENT' })
      expect((caught as Error).message.startsWith(`${field} must `), (caught as Error).message).toBe(true)
    }
    expect(() => rig.portal.setRestrictionManagerParams(null as never)).toThrow(
      /^restrictionParams must be an object/,
    )
  })
})

describe('httpOptions', () => {
  it('unknown keys are dropped at construction and their names logged at warn level', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({
      client: { logger, httpOptions: { timeout: 5_000, retries: 2, maxRedirects: 3 } as never },
    })
    const warnings = logger.lines.filter((line) => line.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toBe('httpOptions: dropped unknown option(s) retries, maxRedirects')
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('every known key is taken without a warning', async () => {
    const logger = createMemoryLogger()
    const given = { timeout: 5_000, headers: { 'x-app': 'a' }, connections: 4, keepAliveTimeout: 1_000 }
    rig = await startRig({ client: { logger, httpOptions: { ...given, proxy: 'http://127.0.0.1:9/' } } })
    const withAdapter = await startRig({
      client: { logger, httpOptions: { ...given, adapter: (input, init) => globalThis.fetch(input, init) } },
    })
    expect((await withAdapter.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await withAdapter.close()
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([])
  })

  it('a custom adapter (ky fetch) sends every request, REST and refresh alike; headers are added', async () => {
    const seen: string[] = []
    const adapter: FetchLike = async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init)
      seen.push(new URL(request.url).pathname)
      return globalThis.fetch(request)
    }
    rig = await startRig({ client: { httpOptions: { adapter, headers: { 'x-app': 'demo' } } } })
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    await rig.portal.auth.refreshAuth()
    expect(seen).toEqual(['/rest/profile', '/oauth/token/'])
    expect(rig.emulator.log.restRequests()[0]?.headers['x-app']).toBe('demo')
  })

  it("the default adapter sends httpOptions.headers once each, over the client's own and under a call's", async () => {
    rig = await startRig({
      client: {
        httpOptions: { headers: { 'X-App': 'demo', 'User-Agent': 'my-app/1.0', Accept: 'text/plain' } },
      },
    })
    await rig.portal.actions.v2.call.make({ method: 'profile', headers: { 'x-app': 'call' } })
    await rig.portal.actions.v3.call.make({ unchecked: true, method: 'user.current' })
    const [first, second] = rig.emulator.log.restRequests().map((entry) => entry.headers)
    expect(first).toMatchObject({
      'x-app': 'call',
      'user-agent': 'my-app/1.0',
      accept: 'text/plain',
      'content-type': 'application/json',
    })
    expect(second).toMatchObject({ 'x-app': 'demo', 'user-agent': 'my-app/1.0', accept: 'text/plain' })
  })

  it('bad httpOptions values name the field', async () => {
    await expect(startRig({ client: { httpOptions: { timeout: 0 } } })).rejects.toThrow(
      /httpOptions\.timeout must be an integer from 1 to 600000 ms \(10 minutes\), got 0/,
    )
  })
})

describe('top-level options', () => {
  it('unknown option keys are reported at warn level; known ones are not', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, now: Date.now, restrictionParms: {} } as never })
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'PortalOAuth: ignored unknown option(s) restrictionParms',
    ])
  })
})

describe('logging', () => {
  it('getLogger/setLogger swap the logger; the default logger writes warn and error to the console only', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {})
    const logger = createDefaultLogger()
    logger.debug('quiet')
    logger.info('quiet')
    logger.warn('loud', { a: 1 })
    expect(warn).toHaveBeenCalledWith('loud', { a: 1 })
    expect(debug).not.toHaveBeenCalled()
    warn.mockRestore()
    debug.mockRestore()

    rig = await startRig()
    const memory = createMemoryLogger()
    rig.portal.setLogger(memory)
    expect(rig.portal.getLogger()).toBe(memory)
    expect(() => rig.portal.setLogger({} as never)).toThrow(
      /setLogger: logger must have debug, info, warn and error/,
    )
  })

  it('no secret reaches a log line or an error, through refreshes, failures and retries', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, restrictionParams: { retryDelay: 5 } } })
    const secrets = new Set<string>([rig.emulator.clientSecret, rig.emulator.applicationToken])
    const collect = () => {
      const params = rig.portal.auth.getParams()
      secrets.add(params.accessToken)
      secrets.add(params.refreshToken)
    }
    collect()
    rig.portal.setCallbackRefreshAuth(() => {
      throw new Error(`could not save ${rig.portal.auth.getParams().refreshToken}`)
    })
    const errors: unknown[] = []
    rig.emulator.expireAccessTokens()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    collect()
    // The callback's own error is rethrown unchanged (it is the application's); its log line is redacted.
    await expect(rig.portal.auth.refreshAuth()).rejects.toThrow(/^could not save/)
    collect()
    rig.emulator.dropConnections(1, { method: 'crm.item.add' })
    await rig.portal.actions.v2.call
      .make({ unchecked: true, method: 'crm.item.add', params: {} })
      .catch((error: unknown) => errors.push(error))
    await rig.portal.actions.v2.call.make({ unchecked: true, method: 'no.such' })
    rig.emulator.failOAuth({ error: 'invalid_grant', status: 400 })
    await rig.portal.auth.refreshAuth().catch((error: unknown) => errors.push(error))
    expect(errors).toHaveLength(2)
    expect(logger.lines.some((line) => line.level === 'debug')).toBe(true)
    const written =
      JSON.stringify(logger.lines) + JSON.stringify(errors) + errors.map((error) => String(error)).join()
    for (const secret of secrets) expect(written).not.toContain(secret)
    expect(written).toContain('[redacted]')
  })
})

describe('client-side warning', () => {
  type Fake = { name: string; install: () => () => void; runtime: string }
  const fakeScope = (className: string) => () => {
    const scope = globalThis as Record<string, unknown>
    const ctor = class {}
    Object.defineProperty(ctor, 'name', { value: className })
    scope[className] = ctor
    scope.self = Object.create(ctor.prototype)
    return () => {
      delete scope[className]
      delete scope.self
    }
  }
  const fakes: Fake[] = [
    {
      name: 'browser main thread',
      runtime: 'browser main thread',
      install: () => {
        const scope = globalThis as Record<string, unknown>
        scope.window = { document: {} }
        return () => {
          delete scope.window
        }
      },
    },
    { name: 'Web Worker', runtime: 'Web Worker', install: fakeScope('DedicatedWorkerGlobalScope') },
    { name: 'Shared Worker', runtime: 'Shared Worker', install: fakeScope('SharedWorkerGlobalScope') },
    { name: 'Service Worker', runtime: 'Service Worker', install: fakeScope('ServiceWorkerGlobalScope') },
  ]
  for (const fake of fakes) {
    it(`warns once per instance in a ${fake.name}, and offClientSideWarning() silences both transports`, async () => {
      const uninstall = fake.install()
      try {
        const logger = createMemoryLogger()
        rig = await startRig({ client: { logger } })
        await rig.portal.actions.v2.call.make({ method: 'profile' })
        await rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })
        await rig.portal.actions.v2.call.make({ method: 'profile' })
        const warnings = logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)
        expect(warnings).toEqual([expect.stringContaining(`PortalOAuth is running in a ${fake.runtime}`)])
        await rig.close()

        const quiet = createMemoryLogger()
        rig = await startRig({ client: { logger: quiet } })
        rig.portal.offClientSideWarning()
        await rig.portal.actions.v2.call.make({ method: 'profile' })
        await rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })
        expect(quiet.lines.filter((line) => line.level === 'warn')).toEqual([])
      } finally {
        uninstall()
      }
    })
  }

  it("a transport's offClientSideWarning() silences that transport only", async () => {
    const uninstall = fakes[0]!.install()
    try {
      const logger = createMemoryLogger()
      rig = await startRig({ client: { logger } })
      rig.portal.getHttpClient('v2').offClientSideWarning()
      await rig.portal.actions.v2.call.make({ method: 'profile' })
      const warnings = () => logger.lines.filter((line) => line.level === 'warn').map((line) => line.message)
      expect(warnings()).toEqual([])
      await rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })
      expect(warnings()).toEqual([expect.stringContaining('PortalOAuth is running in a browser main thread')])
    } finally {
      uninstall()
    }
  })

  it('says nothing on a server runtime', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([])
  })
})

describe('destroy()', () => {
  it('later calls reject with a clear SdkError; destroy is idempotent', async () => {
    rig = await startRig()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    await rig.portal.destroy()
    await rig.portal.destroy()
    await expect(rig.portal.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      name: 'SdkError',
      code: 'JSSDK_CLIENT_DESTROYED',
      message: 'PortalOAuth was destroyed; create a new instance to make calls',
    })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'JSSDK_CLIENT_DESTROYED' })
  })

  it('calls waiting in the limiter are rejected, not left hanging', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 0.1 } } } })
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    // The outcome is observed before destroy(): the call may reject while destroy() is still being awaited.
    const waiting = rig.portal.actions.v2.call.make({ method: 'profile' }).then(
      () => 'resolved',
      (error: unknown) => error,
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    await rig.portal.destroy()
    expect(await waiting).toMatchObject({ code: 'JSSDK_CLIENT_DESTROYED' })
  })
})
