/**
 * `npm run inspect`: starts a local Stately inspector server (no browser is opened), attaches a WebSocket inspector
 * to a client running against the in-process portal emulator, prints the address to open, runs the demo scenario
 * at a pace a person can follow, and exits.
 *
 * Options: `--port <n>` (default 8080), `--step <ms>` pause between steps (default 1500), `--wait <s>` seconds to
 * wait for the page to be opened before the scenario (default 5), `--linger <s>` seconds to stay up after it
 * (default 5). The server replays the last 200 events to a page that connects late.
 * @module
 */
import { parseArgs } from 'node:util'
import { createWebSocketInspector } from '@statelyai/inspect'
import { createInspectorServer } from '@statelyai/inspect/server'
import {
  createNullLogger,
  PortalOAuth,
  RefreshTokenError,
  redactingInspectorOptions,
} from '../../src/index.js'
import { startPortalEmulator } from '../../src/testing/index.js'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8080' },
    step: { type: 'string', default: '1500' },
    wait: { type: 'string', default: '5' },
    linger: { type: 'string', default: '5' },
  },
})

function number(name: string, text: string | undefined): number {
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`)
  return value
}

const port = number('port', values.port)
const stepMs = number('step', values.step)
const waitS = number('wait', values.wait)
const lingerS = number('linger', values.linger)

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The name of a thrown value, for a line of the scenario. */
const nameOf = (error: unknown): string => (error instanceof Error ? error.name : typeof error)

/** Awaits a call and fails the run when it did not succeed. */
async function succeeds(call: Promise<{ isSuccess: boolean; getErrorMessages(): string[] }>): Promise<void> {
  const result = await call
  if (!result.isSuccess) throw new Error(`the call failed: ${result.getErrorMessages().join('; ')}`)
}

/** Stops what was started, last first; runs once. */
const stops: Array<() => unknown> = []
let stopping: Promise<void> | null = null
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    while (stops.length > 0) {
      try {
        await stops.pop()?.()
      } catch {
        // Keep stopping the rest.
      }
    }
  })()
  return stopping
}

process.once('SIGINT', () => {
  console.log('\ninterrupted')
  void stopAll().then(() => process.exit(130))
})

async function main(): Promise<void> {
  const server = createInspectorServer({ port, autoOpen: false })
  stops.push(() => server.stop())
  const inspector = createWebSocketInspector({
    url: `ws://localhost:${port}`,
    ...redactingInspectorOptions(),
  })
  stops.push(() => inspector.stop())
  console.log(`Stately inspector: open http://localhost:${port} in a browser`)

  // One clock for the portal emulator and the client, so that "an hour later" is one line.
  let offsetMs = 0
  const now = (): number => Date.now() + offsetMs
  const emulator = await startPortalEmulator({ now })
  stops.push(() => emulator.close())
  const params = emulator.issueAuthParams()
  const portal = new PortalOAuth(
    params,
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { now, inspect: inspector.inspect, logger: createNullLogger() },
  )
  stops.push(() => portal.destroy())
  portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
    console.log(
      `  refresh callback: new pair expires at ${new Date(b24OAuthParams.expires * 1000).toISOString()}`,
    )
  })

  if (waitS > 0) {
    console.log(`starting in ${waitS} s`)
    await pause(waitS * 1000)
  }
  /**
   * One step of the scenario: prints its title, runs it, then checks that the token is in the state the title
   * promises, so that a step that no longer does what it says fails the run instead of printing something else.
   */
  const step = async (
    text: string,
    expected: PortalOAuth['tokenState'],
    action: () => Promise<void> | void,
  ): Promise<void> => {
    console.log(`- ${text}`)
    await action()
    console.log(`  token: ${portal.tokenState}, admin flag: ${portal.auth.adminState}`)
    if (portal.tokenState !== expected) {
      throw new Error(`step "${text}": the token is ${portal.tokenState}, expected ${expected}`)
    }
    await pause(stepMs)
  }
  const refreshRequests = (): number => emulator.log.refreshRequests().length

  await step('a call while the token is valid', 'valid', async () => {
    await succeeds(portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-1' }))
  })
  await step('an hour passes: the access token expires', 'expired', () => {
    offsetMs = params.expires * 1000 - Date.now() + 60_000
    console.log('  (the client refreshes on its next call or getAuthData())')
  })
  await step('a burst of 10 calls: one refresh, every call waits for it', 'valid', async () => {
    const before = refreshRequests()
    const calls = Array.from({ length: 10 }, (_, index) =>
      portal.actions.v2.call.make({ method: 'server.time', requestId: `burst-${index}` }),
    )
    const results = await Promise.all(calls)
    const ok = results.filter((result) => result.isSuccess).length
    const sent = refreshRequests() - before
    console.log(`  ${ok}/10 calls succeeded, ${sent} refresh request(s) sent`)
    if (ok !== 10 || sent !== 1) throw new Error(`expected 10/10 calls and 1 refresh, got ${ok} and ${sent}`)
  })
  await step(
    'the portal rejects the token (expired_token): the call refreshes and is sent again',
    'valid',
    async () => {
      const before = refreshRequests()
      emulator.expireAccessTokens()
      await succeeds(portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-2' }))
      const sent = refreshRequests() - before
      console.log(`  call succeeded after ${sent} refresh request(s)`)
      if (sent !== 1) throw new Error(`expected 1 refresh request, got ${sent}`)
    },
  )
  await step(
    'the OAuth server is down (503 on every attempt): refreshAuth() fails, the token stays in use',
    'valid',
    async () => {
      const before = refreshRequests()
      // The first attempt and every retry of the refresh (refreshRetries, 3 by default) meet a 503.
      emulator.failTokenRequests({ status: 503 }, 4)
      const error = await portal.auth.refreshAuth().then(
        () => null,
        (thrown: unknown) => thrown,
      )
      if (error === null) throw new Error('refreshAuth() succeeded against a server that is down')
      console.log(`  refreshAuth() threw ${nameOf(error)} after ${refreshRequests() - before} attempts`)
      await succeeds(portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-3' }))
      console.log('  a call with the token held still succeeds')
    },
  )
  await step(
    'the OAuth server refuses the refresh token (invalid_grant): the pair is dead, calls fail at once',
    'dead',
    async () => {
      emulator.failOAuth({ error: 'invalid_grant', error_description: 'The refresh token is dead' })
      const refused = await portal.auth.refreshAuth().then(
        () => null,
        (thrown: unknown) => thrown,
      )
      if (!(refused instanceof RefreshTokenError))
        throw new Error('refreshAuth() did not throw RefreshTokenError')
      console.log(`  refreshAuth() threw ${nameOf(refused)} (${refused.code})`)
      const sentBefore = emulator.log.restRequests().length
      const call = await portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-4' }).then(
        (result) => (result.isSuccess ? null : result),
        (thrown: unknown) => thrown,
      )
      if (call === null) throw new Error('a call on a dead pair succeeded')
      const sent = emulator.log.restRequests().length - sentBefore
      console.log(
        `  a call failed with ${call === refused ? 'the same error' : nameOf(call)}, ${sent} request(s) sent`,
      )
    },
  )
  await step('the application is installed again: setAuthOptions() takes the new pair', 'valid', async () => {
    portal.setAuthOptions(emulator.issueAuthParams())
    await succeeds(portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-5' }))
    console.log('  a call with the new pair succeeds')
  })
  await step('initIsAdmin(): one profile call, then auth.isAdmin is readable', 'valid', async () => {
    await portal.initIsAdmin('inspect-admin')
    console.log(`  auth.isAdmin = ${portal.auth.isAdmin}`)
  })

  if (lingerS > 0) {
    console.log(`done; the inspector stays up for ${lingerS} s`)
    await pause(lingerS * 1000)
  }
}

main()
  .then(() => stopAll())
  .then(
    () => process.exit(0),
    async (error: unknown) => {
      console.error(error)
      await stopAll()
      process.exit(1)
    },
  )
