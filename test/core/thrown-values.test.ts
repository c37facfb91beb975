import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { afterEach, describe, expect, it } from 'vitest'
import { DiagnosticsChannel } from '../../src/index.js'
import { createMemoryLogger, type Rig, startRig } from '../helpers.js'

let rig: Rig | undefined
const listeners: Array<[string, (message: unknown) => void]> = []
afterEach(async () => {
  for (const [name, listener] of listeners.splice(0)) unsubscribe(name, listener)
  await rig?.close()
  rig = undefined
})

/** Every message published on `name` from now on. */
function published(name: string): unknown[] {
  const messages: unknown[] = []
  const listener = (message: unknown): void => void messages.push(message)
  subscribe(name, listener)
  listeners.push([name, listener])
  return messages
}

describe('a custom refresh that rejects with something other than an Error (spec 7)', () => {
  it('a plain object without secrets is kept as the cause itself, not a copy', async () => {
    rig = await startRig()
    const raw = { reason: 'vault sealed', retryAfter: 30 }
    rig.portal.setCustomRefreshAuth(() => Promise.reject(raw))
    const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toBe('Strange error: {"reason":"vault sealed","retryAfter":30}')
    expect(error.cause).toBe(raw)
  })

  it.each([
    ['undefined', undefined, 'Strange error: undefined'],
    ['a Symbol', Symbol('sealed'), 'Strange error: Symbol(sealed)'],
    ['a function', function sealedVault() {}, 'Strange error: [function sealedVault]'],
  ])(
    '%s becomes "Strange error: ..." with the raw value as its cause; the token is usable again',
    async (_, raw, message) => {
      rig = await startRig()
      rig.portal.setCustomRefreshAuth(() => Promise.reject(raw))
      const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
      expect(error).toBeInstanceOf(Error)
      expect(error.message).toBe(message)
      expect(error.cause).toBe(raw)
      expect(rig.portal.tokenState).toBe('valid')
      expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    },
  )
})

describe('values JSON cannot write', () => {
  it('a cyclic object and one whose getter throws: "Strange error: ..." with the raw value as cause', async () => {
    rig = await startRig()
    const cyclic: Record<string, unknown> = { reason: 'loop' }
    cyclic.self = cyclic
    const hostile = {}
    Object.defineProperty(hostile, 'reason', {
      enumerable: true,
      get() {
        throw new Error('getter boom')
      },
    })
    for (const [raw, text] of [
      [cyclic, '{"reason":"loop","self":"[circular]"}'],
      [hostile, '{"reason":"[unreadable]"}'],
    ] as const) {
      rig.portal.setCustomRefreshAuth(() => Promise.reject(raw))
      const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
      expect(error.message).toBe(`Strange error: ${text}`)
      expect(error.cause).toBe(raw)
    }
    expect(rig.portal.tokenState).toBe('valid')
  })

  it('a cyclic object holding the refresh token: the cause is the raw value, the message names no token', async () => {
    rig = await startRig()
    const { refreshToken } = rig.portal.auth.getParams()
    const raw: Record<string, unknown> = {}
    rig.portal.setCustomRefreshAuth(async (context) => {
      raw.note = `spent ${context.refreshToken}`
      raw.self = raw
      throw raw
    })
    const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
    expect(error.message).toBe('Strange error: {"note":"spent [redacted]","self":"[circular]"}')
    expect(String(error.stack)).not.toContain(refreshToken)
    expect(error.cause).toBe(raw)
  })
})

describe('a custom refresh whose error quotes the refresh token through its own getter', () => {
  it('no diagnostics message, log line or error the caller gets holds the token', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const { refreshToken } = rig.portal.auth.getParams()
    const refreshErrors = published(DiagnosticsChannel.refreshError)
    const callErrors = published(DiagnosticsChannel.callError)
    const failure = new Error('vault refused')
    rig.portal.setCustomRefreshAuth(async (context) => {
      Object.defineProperty(failure, 'code', { get: () => `REFUSED_${context.refreshToken}` })
      throw failure
    })
    rig.emulator.expireAccessTokens()
    const thrown = await rig.portal.actions.v2.call
      .make({ method: 'profile' })
      .catch((error: unknown) => error)
    // Spec 7: rethrown unchanged; only its one redacted snapshot is published.
    expect(thrown).toBe(failure)
    expect(refreshErrors.length).toBeGreaterThan(0)
    expect(callErrors).toHaveLength(1)
    for (const message of [...refreshErrors, ...callErrors]) {
      expect(JSON.stringify(message)).not.toContain(refreshToken)
    }
    expect(callErrors[0]).toMatchObject({ error: { code: 'REFUSED_[redacted]', message: 'vault refused' } })
    expect(JSON.stringify(logger.lines)).not.toContain(refreshToken)
  })
})
