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
import { createNullLogger, PortalOAuth, redactingInspectorOptions } from '../../src/index.js'
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
  const step = async (text: string, action: () => Promise<void> | void): Promise<void> => {
    console.log(`- ${text}`)
    await action()
    console.log(`  token: ${portal.tokenState}, admin flag: ${portal.auth.adminState}`)
    await pause(stepMs)
  }

  await step('a call while the token is valid', async () => {
    await portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-1' })
  })
  await step('an hour passes: the access token expires', () => {
    offsetMs = params.expires * 1000 - Date.now() + 60_000
    console.log('  (the client notices on its next call or getAuthData())')
  })
  await step('a burst of 10 calls: one refresh, every call waits for it', async () => {
    const calls = Array.from({ length: 10 }, (_, index) =>
      portal.actions.v2.call.make({ method: 'server.time', requestId: `burst-${index}` }),
    )
    const results = await Promise.all(calls)
    const ok = results.filter((result) => result.isSuccess).length
    console.log(
      `  ${ok}/10 calls succeeded, ${emulator.log.refreshRequests().length} refresh request(s) sent`,
    )
  })
  await step(
    'the portal rejects the token (expired_token): the call refreshes and is sent again',
    async () => {
      emulator.expireAccessTokens()
      const result = await portal.actions.v2.call.make({ method: 'app.info', requestId: 'inspect-2' })
      console.log(`  call ${result.isSuccess ? 'succeeded' : 'failed'} after the refresh`)
    },
  )
  await step(
    'the OAuth server refuses a manual refresh (invalid_grant): the token stays in use',
    async () => {
      emulator.failOAuth({ error: 'invalid_grant', error_description: 'The refresh token is dead' })
      await portal.auth.refreshAuth().catch((error: unknown) => {
        console.log(`  refreshAuth() threw ${error instanceof Error ? error.name : 'a value'}`)
      })
    },
  )
  await step('initIsAdmin(): one profile call, then auth.isAdmin is readable', async () => {
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
