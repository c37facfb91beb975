import { readFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createNullLogger, PortalHook, PortalOAuth, SdkError } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'

// `process.env` values are `string | undefined`: this file compiles only if the constructors take them as they are.
let emulator: PortalEmulator | undefined
const clients: Array<{ destroy(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.destroy()))
  await emulator?.close()
  emulator = undefined
})

function thrown(make: () => unknown): SdkError {
  try {
    make()
  } catch (error) {
    expect(error).toBeInstanceOf(SdkError)
    return error as SdkError
  }
  throw new Error('expected a throw')
}

describe('inputs as an environment gives them', () => {
  it('fromWebhookUrl(process.env.X): works when set, throws JSSDK_INVALID_ARGUMENT naming url when unset', async () => {
    emulator = await startPortalEmulator()
    const env: NodeJS.ProcessEnv = { PORTAL_WEBHOOK_URL: emulator.createWebhook() }
    const hook = PortalHook.fromWebhookUrl(env.PORTAL_WEBHOOK_URL, { logger: createNullLogger() })
    clients.push(hook)
    const result = await hook.actions.v2.call.make({ method: 'user.current' })
    expect(result.isSuccess).toBe(true)

    const error = thrown(() => PortalHook.fromWebhookUrl(env.MISSING_WEBHOOK_URL))
    expect(error.code).toBe('JSSDK_INVALID_ARGUMENT')
    expect(error.message).toBe(
      'PortalHook: url must be a webhook URL such as https://portal.example.com/rest/1/secret/; it is missing',
    )
  })

  it('new PortalHook({ b24Url, secret }) from the environment: a missing part is named', () => {
    const env: NodeJS.ProcessEnv = { PORTAL_URL: 'https://portal.example.com' }
    const error = thrown(
      () => new PortalHook({ b24Url: env.PORTAL_URL, userId: 1, secret: env.PORTAL_SECRET }),
    )
    expect(error.code).toBe('JSSDK_INVALID_ARGUMENT')
    expect(error.message).toMatch(/^PortalHook: secret must be .*; it is missing$/)
  })

  it('new PortalOAuth(params, { clientId, clientSecret }) from the environment: a missing one is named', async () => {
    emulator = await startPortalEmulator()
    const env: NodeJS.ProcessEnv = { CLIENT_ID: emulator.clientId, CLIENT_SECRET: emulator.clientSecret }
    const params = emulator.issueAuthParams()
    const portal = new PortalOAuth(
      params,
      { clientId: env.CLIENT_ID, clientSecret: env.CLIENT_SECRET },
      { logger: createNullLogger() },
    )
    clients.push(portal)
    expect((await portal.auth.refreshAuth()).access_token).toBe(emulator.currentAccessToken)

    const error = thrown(
      () => new PortalOAuth(params, { clientId: env.CLIENT_ID, clientSecret: env.MISSING_SECRET }),
    )
    expect(error.code).toBe('JSSDK_INVALID_ARGUMENT')
    expect(error.message).toMatch(/clientSecret/)
  })
})

describe('User-Agent', () => {
  it('carries the version written in package.json', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    emulator = await startPortalEmulator()
    const hook = PortalHook.fromWebhookUrl(emulator.createWebhook(), { logger: createNullLogger() })
    clients.push(hook)
    await hook.actions.v3.call.make({ unchecked: true, method: 'user.current' })
    const [entry] = emulator.log.restRequests()
    expect(entry?.headers['user-agent']).toBe(`portal-oauth/${manifest.version}`)
  })
})
