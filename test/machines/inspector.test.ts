import { createWebSocketInspector } from '@statelyai/inspect'
import { createInspectorServer } from '@statelyai/inspect/server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { InspectionEvent } from 'xstate'
import {
  createNullLogger,
  type InspectOption,
  PortalOAuth,
  redactingInspectorOptions,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import {
  connectRawReceiver,
  freePort,
  leaks,
  type RawReceiver,
  reachableStrings,
} from './inspector-support.js'

/** Things to stop after each test, last started first. */
const cleanups: Array<() => unknown> = []

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

/** What a scenario leaves behind to look at. */
interface Scenario {
  portal: PortalOAuth
  emulator: PortalEmulator
  /** Every secret the client held: first pair, refreshed pair, client secret, application token. */
  secrets: Record<string, string>
}

/**
 * A client and the emulator on one fake clock: a call while the token is valid, time passes beyond `expires`, a
 * call that refreshes first, then `initIsAdmin()`.
 */
async function expiryAndRefresh(inspect: InspectOption): Promise<Scenario> {
  let offset = 0
  const now = (): number => Date.now() + offset
  const emulator = await startPortalEmulator({ now })
  cleanups.push(() => emulator.close())
  const params = emulator.issueAuthParams()
  const portal = new PortalOAuth(
    params,
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { now, inspect, logger: createNullLogger() },
  )
  cleanups.push(() => portal.destroy())
  const secrets: Record<string, string> = {
    'first access token': params.accessToken,
    'first refresh token': params.refreshToken,
    'client secret': emulator.clientSecret,
    'application token': params.applicationToken,
  }
  portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
    secrets['new access token'] = b24OAuthParams.accessToken
    secrets['new refresh token'] = b24OAuthParams.refreshToken
  })

  expect((await portal.actions.v2.call.make({ method: 'app.info' })).isSuccess).toBe(true)
  offset = params.expires * 1000 - Date.now() + 60_000
  expect((await portal.actions.v2.call.make({ method: 'app.info' })).isSuccess).toBe(true)
  expect(emulator.log.refreshRequests()).toHaveLength(1)
  expect(Object.keys(secrets)).toContain('new refresh token')
  await portal.initIsAdmin()
  expect(portal.auth.isAdmin).toBe(true)
  return { portal, emulator, secrets }
}

/** Top-level state names (`{ refreshing: 'persisting' }` is `refreshing`), consecutive duplicates dropped. */
function changes(values: readonly unknown[]): unknown[] {
  const names = values.map((value) =>
    value !== null && typeof value === 'object' ? Object.keys(value)[0] : value,
  )
  return names.filter((name, index) => index === 0 || name !== names[index - 1])
}

/** The `value` of each snapshot the inspector relayed for the actor registered under `name`. */
function relayedStates(receiver: RawReceiver, name: string): unknown[] {
  const messages = receiver.parsed()
  const sessions = new Set(
    messages
      .filter((message) => message.type === '@xstate.actor' && message.name === name)
      .map((message) => message.sessionId),
  )
  return messages
    .filter((message) => message.type === '@xstate.snapshot' && sessions.has(message.sessionId))
    .map((message) => (message.snapshot as { value?: unknown } | undefined)?.value)
}

describe('Stately inspector in Node: createInspectorServer + createWebSocketInspector', () => {
  async function startInspector(): Promise<{
    receiver: RawReceiver
    inspector: ReturnType<typeof createWebSocketInspector>
  }> {
    const port = await freePort()
    const server = createInspectorServer({ port, autoOpen: false })
    cleanups.push(() => server.stop())
    // A plain WebSocket client sees exactly what the inspector UI's page would receive.
    const receiver = await connectRawReceiver(`ws://127.0.0.1:${port}`)
    cleanups.push(() => receiver.close())
    const inspector = createWebSocketInspector({
      url: `ws://127.0.0.1:${port}`,
      ...redactingInspectorOptions(),
    })
    cleanups.push(() => inspector.stop())
    return { receiver, inspector }
  }

  it('relays the token snapshots valid, refreshing, valid in order, and the admin flag', async () => {
    const { receiver, inspector } = await startInspector()
    await expiryAndRefresh(inspector.inspect)

    await vi.waitFor(
      () => {
        expect(changes(relayedStates(receiver, 'accessToken'))).toEqual([
          'valid',
          'expired',
          'refreshing',
          'valid',
        ])
        expect(changes(relayedStates(receiver, 'adminFlag'))).toEqual([
          'notInitialised',
          'loading',
          'initialised',
        ])
      },
      { timeout: 5_000, interval: 20 },
    )
  })

  it('sends no secret: tokens old and new, client secret, application token, nor what a failed refresh throws', async () => {
    const { receiver, inspector } = await startInspector()
    const { portal, emulator, secrets } = await expiryAndRefresh(inspector.inspect)
    // A custom refresh that fails with the refresh token in its message and on a property.
    const current = portal.auth.getParams().refreshToken
    portal.setCustomRefreshAuth(async () => {
      throw Object.assign(new Error(`refresh with ${current} refused`), { refreshToken: current })
    })
    await expect(portal.auth.refreshAuth()).rejects.toThrow('refused')
    portal.removeCustomRefreshAuth()
    // And the OAuth server refusing the pair.
    emulator.failOAuth({ error: 'invalid_grant', error_description: 'The refresh token is dead' })
    await expect(portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'invalid_grant' })

    await vi.waitFor(
      () => {
        const states = changes(relayedStates(receiver, 'accessToken'))
        expect(states).toEqual([
          'valid',
          'expired',
          'refreshing',
          'valid',
          'refreshing',
          'valid',
          'refreshing',
          'dead',
        ])
      },
      { timeout: 5_000, interval: 20 },
    )
    expect(Object.keys(secrets)).toHaveLength(6)
    expect(receiver.messages.length).toBeGreaterThan(10)
    expect(leaks(receiver.messages, secrets)).toEqual([])
    const errors = receiver
      .parsed()
      .filter(
        (message) =>
          message.type === '@xstate.event' &&
          (message.event as { type?: string } | undefined)?.type === 'xstate.error.actor.refresh',
      )
      .map((message) => (message.event as { error?: unknown }).error)
    // The custom refresh's error is the application's own: none of its fields is shown, only that one was thrown.
    expect(errors).toEqual([
      { kind: 'failed', error: { name: 'thrown value' } },
      { kind: 'dead', error: { name: 'RefreshTokenError', code: 'invalid_grant', status: 400 } },
    ])
  })
})

describe('the raw inspect callback (any runtime)', () => {
  it('receives every snapshot of both machines, with no secret reachable from any inspection event', async () => {
    const events: InspectionEvent[] = []
    const { portal, secrets } = await expiryAndRefresh((event) => {
      events.push(event)
    })
    const snapshotsOf = (actor: unknown): unknown[] =>
      events
        .filter((event) => event.type === '@xstate.snapshot' && event.actorRef === actor)
        .map((event) =>
          event.type === '@xstate.snapshot' ? (event.snapshot as { value?: unknown }).value : null,
        )

    expect(changes(snapshotsOf(portal.auth.tokenActor))).toEqual(['valid', 'expired', 'refreshing', 'valid'])
    expect(changes(snapshotsOf(portal.auth.adminActor))).toEqual(['notInitialised', 'loading', 'initialised'])
    const sent = events.filter((event) => event.type === '@xstate.event').map((event) => event.event.type)
    expect(sent).toEqual(
      expect.arrayContaining(['clock.tick', 'authData.requested', 'xstate.done.actor.refresh']),
    )

    // Everything an inspect callback could reach: events, snapshots, actor references and what hangs off them.
    expect(leaks(reachableStrings(events), secrets)).toEqual([])
    const visible = events.map((event) =>
      event.type === '@xstate.event' || event.type === '@xstate.snapshot'
        ? {
            type: event.type,
            event: event.event,
            ...(event.type === '@xstate.snapshot' ? { snapshot: event.snapshot } : {}),
          }
        : { type: event.type, snapshot: event.actorRef.getSnapshot() },
    )
    expect(leaks([JSON.stringify(visible)], secrets)).toEqual([])
  })
})
