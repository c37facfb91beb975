import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type CallEndMessage,
  type CallErrorMessage,
  type CallStartMessage,
  createNullLogger,
  DiagnosticsChannel,
  type LimiterWaitMessage,
  PortalHook,
  type RefreshEndMessage,
  type RefreshErrorMessage,
  type RefreshStartMessage,
} from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

type Name = (typeof DiagnosticsChannel)[keyof typeof DiagnosticsChannel]

/** Every publication on the package's channels, in order, while subscribed. */
const published: Array<{ name: Name; message: unknown }> = []
const listeners = new Map<Name, (message: unknown) => void>()

function listen(): void {
  for (const name of Object.values(DiagnosticsChannel)) {
    const listener = (message: unknown): void => void published.push({ name, message })
    listeners.set(name, listener)
    subscribe(name, listener)
  }
}

function on<T>(name: Name): T[] {
  return published.filter((entry) => entry.name === name).map((entry) => entry.message as T)
}

let rig: Rig | undefined
let hook: PortalHook | undefined
afterEach(async () => {
  for (const [name, listener] of listeners) unsubscribe(name, listener)
  listeners.clear()
  published.length = 0
  await hook?.destroy()
  hook = undefined
  await rig?.close()
  rig = undefined
})

describe('diagnostics_channel publications', () => {
  it('a call: start, then end with status, attempts, limiter wait and duration', async () => {
    rig = await startRig()
    listen()
    await rig.portal.actions.v3.call.make({ method: 'tasks.task.list', requestId: 'req-1' })
    await rig.portal.actions.v2.call.make({ unchecked: true, method: 'no.such.method' })
    const [start, missingStart] = on<CallStartMessage>(DiagnosticsChannel.callStart)
    expect(start).toEqual({
      callId: expect.any(Number),
      apiVersion: 'v3',
      method: 'tasks.task.list',
      requestId: 'req-1',
    })
    expect(missingStart).toEqual({ callId: expect.any(Number), apiVersion: 'v2', method: 'no.such.method' })
    const [end, missing] = on<CallEndMessage>(DiagnosticsChannel.callEnd)
    expect(end).toEqual({
      ...start,
      status: 200,
      isSuccess: true,
      attempts: 1,
      limiterWaitMs: expect.any(Number),
      durationMs: expect.any(Number),
    })
    expect(end?.durationMs).toBeGreaterThan(0)
    expect(missing).toMatchObject({
      callId: missingStart?.callId,
      status: 404,
      isSuccess: false,
      errorCode: 'ERROR_METHOD_NOT_FOUND',
      attempts: 1,
    })
    expect(missing?.callId).not.toBe(start?.callId)
  })

  it('a call that rejects: error with its code, attempts and no secret', async () => {
    rig = await startRig()
    hook = PortalHook.fromWebhookUrl(rig.emulator.createWebhook(), { logger: createNullLogger() })
    listen()
    rig.emulator.dropConnections(1, { method: 'crm.item.add', after: 'body' })
    await expect(
      hook.actions.v2.call.make({ unchecked: true, method: 'crm.item.add', params: { fields: {} } }),
    ).rejects.toThrow()
    const [failure] = on<CallErrorMessage>(DiagnosticsChannel.callError)
    expect(failure).toMatchObject({
      apiVersion: 'v2',
      method: 'crm.item.add',
      attempts: 1,
      error: { name: 'AjaxError', code: 'NETWORK_ERROR' },
    })
    expect(on(DiagnosticsChannel.callEnd)).toEqual([])
  })

  it('a refresh: start and end with generations; a failed one: error with the OAuth code', async () => {
    rig = await startRig()
    listen()
    const refreshed = await rig.portal.auth.refreshAuth()
    rig.emulator.failOAuth({ error: 'invalid_grant', error_description: 'Invalid grant', status: 400 })
    await expect(rig.portal.auth.refreshAuth()).rejects.toThrow()
    expect(on<RefreshStartMessage>(DiagnosticsChannel.refreshStart)).toEqual([
      { generation: 0 },
      { generation: 1 },
    ])
    const [end] = on<RefreshEndMessage>(DiagnosticsChannel.refreshEnd)
    expect(end).toEqual({ generation: 1, expires: refreshed.expires, durationMs: expect.any(Number) })
    expect(on<RefreshErrorMessage>(DiagnosticsChannel.refreshError)).toEqual([
      {
        generation: 1,
        durationMs: expect.any(Number),
        error: { name: 'RefreshTokenError', code: 'invalid_grant', message: expect.any(String), status: 400 },
      },
    ])
  })

  it('limiter waits: each queued attempt says how long it waited; the calls add them up', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 20 } } } })
    listen()
    await Promise.all(
      ['a', 'b', 'c'].map((id) => rig?.portal.actions.v2.call.make({ method: 'profile', requestId: id })),
    )
    const waits = on<LimiterWaitMessage>(DiagnosticsChannel.limiterWait)
    expect(waits).toHaveLength(2)
    for (const wait of waits)
      expect(wait).toEqual({ method: 'profile', reason: 'rate', waitMs: expect.any(Number) })
    // 20 per second: the second request waits about 50 ms, the third about 100 ms.
    expect(Math.max(...waits.map((wait) => wait.waitMs))).toBeGreaterThan(40)
    const ends = on<CallEndMessage>(DiagnosticsChannel.callEnd)
    expect(ends.filter((end) => end.limiterWaitMs > 40)).toHaveLength(2)
    // A wait is not an attempt: each call went out once, and its wait is part of its duration.
    expect(ends.map((end) => end.attempts)).toEqual([1, 1, 1])
    for (const end of ends) expect(end.limiterWaitMs).toBeLessThanOrEqual(end.durationMs)
  })

  it('no publication carries a token, the client secret or a webhook secret', async () => {
    rig = await startRig()
    const webhook = rig.emulator.createWebhook()
    hook = PortalHook.fromWebhookUrl(webhook, { logger: createNullLogger() })
    listen()
    const first = [rig.emulator.currentAccessToken, rig.emulator.currentRefreshToken]
    // A custom refresh whose error quotes the refresh token it was given.
    rig.portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      throw new Error(`refresh token ${refreshToken} was revoked`)
    })
    await expect(rig.portal.auth.refreshAuth()).rejects.toThrow()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    rig.emulator.dropConnections(1, { method: 'crm.item.add', after: 'body' })
    await expect(
      hook.actions.v2.call.make({ unchecked: true, method: 'crm.item.add', params: { fields: {} } }),
    ).rejects.toThrow()
    const text = JSON.stringify(published)
    expect(on(DiagnosticsChannel.refreshError)).toHaveLength(1)
    expect(text).toContain('[redacted]')
    const webhookSecret = new URL(webhook).pathname.split('/').filter(Boolean).at(-1) ?? ''
    for (const secret of [...first, rig.emulator.clientSecret, webhookSecret]) {
      expect(secret && secret.length > 5).toBe(true)
      expect(text).not.toContain(secret)
    }
  })
})
