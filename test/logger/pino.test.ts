import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** A real pino logger writing JSON lines into memory, read back as pino wrote them. */
function memoryPino(): {
  logger: pino.Logger
  lines: () => Array<Record<string, unknown>>
  text: () => string
} {
  const written: string[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => void written.push(line) })
  return {
    logger,
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => written.join(''),
  }
}

describe('a pino logger', () => {
  it('setLogger(pino()): the context of a call stays fields of the JSON line', async () => {
    rig = await startRig()
    const log = memoryPino()
    rig.portal.setLogger(log.logger)
    expect(rig.portal.getLogger()).toBe(log.logger)
    await rig.portal.actions.v2.call.make({ unchecked: true, method: 'no.such.method', requestId: 'req-404' })
    const line = log.lines().find((entry) => entry.requestId === 'req-404')
    expect(line).toMatchObject({
      level: 20,
      msg: 'v2 no.such.method: portal answered ERROR_METHOD_NOT_FOUND',
      requestId: 'req-404',
      apiVersion: 'v2',
      method: 'no.such.method',
      status: 404,
      attempts: 1,
    })
    expect(line?.durationMs).toBeTypeOf('number')
  })

  it('the logger option: a retried attempt says which attempt, a refresh its generation, no token anywhere', async () => {
    const log = memoryPino()
    rig = await startRig({ client: { logger: log.logger, restrictionParams: { retryDelay: 10 } } })
    const { portal, emulator } = rig
    const firstPair = { access: emulator.currentAccessToken, refresh: emulator.currentRefreshToken }
    emulator.dropConnections(1, { method: 'profile', after: 'body' })
    expect((await portal.actions.v2.call.make({ method: 'profile', requestId: 'req-drop' })).isSuccess).toBe(
      true,
    )
    expect(log.lines().find((entry) => entry.requestId === 'req-drop')).toMatchObject({
      msg: 'v2 profile: attempt failed in transit',
      apiVersion: 'v2',
      method: 'profile',
      attempt: 1,
      retry: true,
    })

    await portal.auth.refreshAuth()
    expect(log.lines().find((entry) => entry.msg === 'token pair refreshed')).toMatchObject({
      level: 30,
      generation: 1,
    })

    // A failing custom refresh whose error quotes the refresh token: the line keeps the error, not the token.
    const current = emulator.currentRefreshToken ?? ''
    portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      throw new Error(`refresh token ${refreshToken} was revoked`)
    })
    await expect(portal.auth.refreshAuth()).rejects.toThrow()
    const failed = log.lines().find((entry) => entry.msg === 'token refresh failed')
    expect(failed).toMatchObject({ level: 50, error: { message: expect.stringContaining('[redacted]') } })

    const secrets = [
      firstPair.access,
      firstPair.refresh,
      current,
      emulator.currentAccessToken,
      emulator.clientSecret,
    ]
    for (const secret of secrets) {
      expect(secret && secret.length > 5).toBe(true)
      expect(log.text()).not.toContain(secret)
    }
  })

  it('a console-shaped logger still gets (message, context)', async () => {
    const calls: unknown[][] = []
    const consoleShaped = {
      debug: (...args: unknown[]) => void calls.push(args),
      info: (...args: unknown[]) => void calls.push(args),
      warn: (...args: unknown[]) => void calls.push(args),
      error: (...args: unknown[]) => void calls.push(args),
    }
    rig = await startRig({ client: { logger: consoleShaped } })
    await rig.portal.actions.v3.call.make({ unchecked: true, method: 'no.such.method', requestId: 'req-c' })
    expect(
      calls.find((args) => typeof args[0] === 'string' && args[0].startsWith('v3 no.such.method')),
    ).toEqual([
      expect.stringContaining('portal answered'),
      expect.objectContaining({ requestId: 'req-c', apiVersion: 'v3', method: 'no.such.method' }),
    ])
  })
})
