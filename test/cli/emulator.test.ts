import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { B24OAuth, LoggerFactory } from '@bitrix24/b24jssdk'
import { describe, expect, it } from 'vitest'
import { PortalOAuth, type PortalOAuthParams } from '../../src/index.js'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { runCli, spawnCli, startCliEmulator } from './cli-process.js'

/** The vendor's own client on the pair the command printed. */
function vendorClient(info: Awaited<ReturnType<typeof startCliEmulator>>['info']): B24OAuth {
  const client = new B24OAuth(info.pair, { clientId: info.clientId, clientSecret: info.clientSecret })
  client.offClientSideWarning()
  client.setLogger(LoggerFactory.createNullLogger())
  return client
}

/** A raw request to the control API with the headers a browser page would send. */
function rawControl(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.once('error', reject)
    req.end()
  })
}

describe('portal-oauth emulator', () => {
  it('prints one JSON line first, whose pair the vendor SDK uses through each of its entry points', async () => {
    const emulator = await startCliEmulator(['--list-rows', '130'])
    const { info } = emulator
    expect(info).toMatchObject({
      clientEndpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/rest\/$/),
      serverEndpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/rest\/$/),
      controlEndpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
      clientId: expect.any(String),
      clientSecret: expect.stringMatching(/^\w{40}$/),
      memberId: info.pair.memberId,
      pair: { clientEndpoint: info.clientEndpoint, serverEndpoint: info.serverEndpoint, status: 'L' },
    })
    const client = vendorClient(info)
    try {
      const profile = await client.actions.v2.call.make({ method: 'profile', params: {} })
      expect(profile.getData()?.result).toMatchObject({ ID: '1', ADMIN: true })
      const task = await client.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 7 } })
      expect(task.getData()?.result).toMatchObject({ item: { id: 7, title: 'Task 7' } })
      const v2Batch = await client.actions.v2.batch.make({
        calls: [
          ['profile', {}],
          ['user.get', { ID: 2 }],
        ],
      })
      expect(v2Batch.isSuccess).toBe(true)
      expect((v2Batch.getData() as unknown[])[1]).toEqual([expect.objectContaining({ ID: '2' })])
      const v3Batch = await client.actions.v3.batch.make({
        calls: [
          ['tasks.task.get', { id: 1 }],
          ['tasks.task.get', { id: 2 }],
        ],
      })
      expect(v3Batch.getData()).toMatchObject([
        { item: { id: 1, title: 'Task 1' } },
        { item: { id: 2, title: 'Task 2' } },
      ])
      const listed = await client.actions.v2.callList.make({
        method: 'crm.item.list',
        params: { entityTypeId: 2 },
        idKey: 'id',
        customKeyForResult: 'items',
      })
      expect(listed.getData()).toHaveLength(130)
      let fetched = 0
      for await (const page of client.actions.v2.fetchList.make({
        method: 'user.get',
        params: {},
        idKey: 'ID',
      }))
        fetched += page.length
      expect(fetched).toBe(130)
      // v3 lists: the vendor's keyset sends pagination { page: 0, limit } with an id filter.
      const tasks = await client.actions.v3.callList.make({
        method: 'tasks.task.list',
        params: {},
        idKey: 'id',
        customKeyForResult: 'items',
      })
      expect((tasks.getData() as Array<{ id: number }>).map((task) => task.id)).toEqual(
        Array.from({ length: 130 }, (_, index) => index + 1),
      )
      let fetchedV3 = 0
      for await (const page of client.actions.v3.fetchList.make({
        method: 'tasks.task.list',
        params: {},
        idKey: 'id',
        customKeyForResult: 'items',
      }))
        fetchedV3 += page.length
      expect(fetchedV3).toBe(130)
      const log = (await emulator.control('GET', '/log?kind=rest')).body as RequestLogEntry[]
      expect(log.map((entry) => entry.restMethod)).toEqual(
        expect.arrayContaining(['profile', 'tasks.task.get', 'crm.item.list', 'user.get', 'tasks.task.list']),
      )
      expect(log.every((entry) => entry.status === 200)).toBe(true)
    } finally {
      client.destroy()
    }
  }, 60_000)

  it('the control API expires tokens, fails the next refresh, defines answers and clears its log', async () => {
    const emulator = await startCliEmulator()
    const client = vendorClient(emulator.info)
    try {
      expect(await emulator.control('POST', '/expire-tokens')).toEqual({ status: 200, body: {} })
      const renewed = await client.actions.v2.call.make({ method: 'profile', params: {} })
      expect(renewed.isSuccess).toBe(true)
      const tokenLog = (await emulator.control('GET', '/log?kind=token')).body as RequestLogEntry[]
      expect(tokenLog.map((entry) => [entry.grantType, entry.status])).toEqual([['refresh_token', 200]])
      const held = client.auth.getAuthData()
      expect((await emulator.control('GET', '/tokens')).body).toEqual({
        accessToken: held === false ? 'expired' : held.access_token,
        refreshToken: expect.any(String),
      })

      await emulator.control('POST', '/fail-refresh', {
        error: 'invalid_grant',
        error_description: 'revoked',
      })
      await emulator.control('POST', '/expire-tokens')
      await expect(client.actions.v2.call.make({ method: 'profile', params: {} })).rejects.toThrow('revoked')
      const refused = (await emulator.control('GET', '/log?kind=token')).body as RequestLogEntry[]
      expect(refused.map((entry) => [entry.status, entry.errorCode])).toEqual([
        [200, undefined],
        [400, 'invalid_grant'],
      ])

      const defined = await emulator.control('PUT', '/methods/app.custom.answer', { result: { answer: 42 } })
      expect(defined).toEqual({ status: 200, body: { method: 'app.custom.answer' } })
      const failing = await emulator.control('PUT', '/methods/app.custom.failure', {
        error: { code: 'ERROR_NOT_FOUND', description: 'Not found', status: 404 },
      })
      expect(failing.status).toBe(200)
      const fresh = vendorClient({
        ...emulator.info,
        pair: (await emulator.control('POST', '/pair')).body as never,
      })
      try {
        const custom = await fresh.actions.v2.call.make({ method: 'app.custom.answer', params: {} })
        expect(custom.getData()?.result).toEqual({ answer: 42 })
        const custom3 = await fresh.actions.v3.call.make({ method: 'app.custom.answer', params: {} })
        expect(custom3.getData()?.result).toEqual({ answer: 42 })
        await expect(
          fresh.actions.v2.call.make({ method: 'app.custom.failure', params: {} }),
        ).rejects.toMatchObject({
          code: 'ERROR_NOT_FOUND',
        })
      } finally {
        fresh.destroy()
      }
      expect(await emulator.control('DELETE', '/log')).toEqual({ status: 200, body: {} })
      expect((await emulator.control('GET', '/log')).body).toEqual([])
    } finally {
      client.destroy()
    }
  }, 60_000)

  it('sends install events to a URL as the portal does, and answers what the application answered', async () => {
    const emulator = await startCliEmulator()
    const received: Array<{ type: string; body: URLSearchParams }> = []
    const app = createServer((req, res) => {
      let text = ''
      req.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk
      })
      req.on('end', () => {
        received.push({ type: req.headers['content-type'] ?? '', body: new URLSearchParams(text) })
        res.end('installed')
      })
    })
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/events`
      const sent = await emulator.control('POST', '/install-events', { event: 'ONAPPINSTALL', url })
      expect(sent).toEqual({ status: 200, body: { status: 200, body: 'installed' } })
      const [install] = received
      expect(install?.type).toBe('application/x-www-form-urlencoded')
      expect(install?.body.get('event')).toBe('ONAPPINSTALL')
      expect(install?.body.get('auth[application_token]')).toBe(emulator.info.applicationToken)
      expect(install?.body.get('auth[member_id]')).toBe(emulator.info.memberId)
      // The pair it carries works.
      const accessToken = install?.body.get('auth[access_token]')
      const tokens = (await emulator.control('GET', '/tokens')).body as { accessToken: string }
      expect(tokens.accessToken).toBe(accessToken)
      const bad = await emulator.control('POST', '/install-events', { event: 'ONAPPDELETE', url })
      expect(bad).toEqual({
        status: 400,
        body: { error: 'event must be ONAPPINSTALL, ONAPPUPDATE or ONAPPUNINSTALL' },
      })
    } finally {
      await new Promise((resolve) => app.close(resolve))
    }
  }, 60_000)

  it('the control API names the field at fault and refuses browser pages and foreign Host names', async () => {
    const emulator = await startCliEmulator()
    expect(await emulator.control('POST', '/fail-refresh', { times: -1 })).toEqual({
      status: 400,
      body: { error: 'times must be a non-negative integer' },
    })
    expect(await emulator.control('PUT', '/methods/x.y', {})).toMatchObject({ status: 400 })
    expect(await emulator.control('POST', '/nowhere')).toMatchObject({ status: 404 })
    expect(await emulator.control('GET', '/expire-tokens')).toMatchObject({ status: 405 })
    const log = new URL('/log', emulator.info.controlEndpoint).href
    expect(await rawControl(log, {})).toBe(200)
    expect(await rawControl(log, { origin: 'https://evil.example' })).toBe(403)
    expect(await rawControl(log, { host: 'rebound.example' })).toBe(403)
    expect((await emulator.control('GET', '/info')).body).toEqual(emulator.info)
  }, 60_000)

  it('the control API refuses a field or query parameter it does not take, naming it, and a log kind it does not know', async () => {
    const emulator = await startCliEmulator()
    try {
      // A misspelt field would otherwise be dropped: this pair would live an hour, not 5 s.
      expect(await emulator.control('POST', '/pair', { expiresin: 5 })).toEqual({
        status: 400,
        body: { error: 'unknown field expiresin: POST /pair takes expiresIn, userId' },
      })
      expect(await emulator.control('POST', '/expire-tokens', { now: true })).toEqual({
        status: 400,
        body: { error: 'unknown field now: POST /expire-tokens takes none' },
      })
      expect(await emulator.control('PUT', '/settings', { rateLimit: { burst: 5 } })).toEqual({
        status: 400,
        body: { error: 'unknown field burst: rateLimit takes burstLimit, drainRate' },
      })
      expect(await emulator.control('PUT', '/methods/app.x', { error: { code: 'E', text: 'no' } })).toEqual({
        status: 400,
        body: { error: 'unknown field text: error takes code, description, status' },
      })
      expect(await emulator.control('GET', '/log?kind=bogus')).toEqual({
        status: 400,
        body: { error: 'kind must be one of token, rest, batch, webhook, other, not bogus' },
      })
      expect(await emulator.control('GET', '/log?knd=rest')).toEqual({
        status: 400,
        body: { error: "unknown field knd: GET /log's query takes kind, since" },
      })
      // What they take still works: a pair that expires in 5 s.
      const pair = await emulator.control('POST', '/pair', { expiresIn: 5 })
      expect(pair).toMatchObject({ status: 200, body: { expiresIn: 5 } })
      expect(await emulator.control('GET', '/log?kind=token&since=0')).toMatchObject({ status: 200 })
    } finally {
      await emulator.stop('SIGTERM')
    }
  }, 60_000)

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s stops it cleanly: exit 0, ports closed',
    async (signal) => {
      const emulator = await startCliEmulator()
      expect(await emulator.stop(signal)).toBe(0)
      await expect(fetch(emulator.info.clientEndpoint)).rejects.toThrow()
      await expect(fetch(emulator.info.controlEndpoint)).rejects.toThrow()
      expect(emulator.output()).toEqual({ stdout: '', stderr: '' })
    },
    30_000,
  )

  it('listens on the ports asked for', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const emulator = await startCliEmulator(['--port', String(port)])
    expect(emulator.info.clientEndpoint).toBe(`http://127.0.0.1:${port}/rest/`)
    // The port is taken now: a second emulator on it fails with exit 1 and says why.
    const second = await runCli(['emulator', '--port', String(port)])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('EADDRINUSE')
  }, 30_000)

  it('--unlimited switches the leaky bucket off: a burst that the default emulator rejects in part all passes', async () => {
    const burst = async (emulator: Awaited<ReturnType<typeof startCliEmulator>>): Promise<number[]> => {
      const { clientEndpoint, pair } = emulator.info
      const answers = await Promise.all(
        Array.from({ length: 60 }, () =>
          fetch(`${clientEndpoint}profile`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ auth: pair.accessToken }),
          }),
        ),
      )
      await Promise.all(answers.map((answer) => answer.arrayBuffer()))
      return answers.map((answer) => answer.status)
    }
    expect(await burst(await startCliEmulator())).toContain(503)
    expect(new Set(await burst(await startCliEmulator(['--unlimited'])))).toEqual(new Set([200]))
  }, 60_000)

  it('without --json it prints its addresses for a person, and no secret', async () => {
    const child = spawnCli(['emulator', '--client-id', 'app.person'])
    let stdout = ''
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    while (!stdout.includes('PORTAL_OAUTH_TRUSTED_SERVERS='))
      await new Promise((resolve) => setTimeout(resolve, 20))
    const control = /control API: +(\S+)/.exec(stdout)?.[1]
    const info = (await (await fetch(`${control}info`)).json()) as {
      clientSecret: string
      pair: { accessToken: string }
    }
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stdout).toMatch(
      /^Portal emulator running; Ctrl-C stops it\.\n {2}portal REST root: +http:\/\/127\.0\.0\.1:\d+\/rest\/\n/,
    )
    expect(stdout).toContain('client id:         app.person')
    expect(stdout).toContain(`PORTAL_OAUTH_TRUSTED_SERVERS=http://127.0.0.1:`)
    expect(stdout).not.toContain(info.clientSecret)
    expect(stdout).not.toContain(info.pair.accessToken)
  }, 30_000)

  it('wrong command lines exit 2 and name the flag; --help exits 0', async () => {
    const badPort = await runCli(['emulator', '--port', 'eighty'])
    expect(badPort).toMatchObject({ code: 2, stdout: '' })
    expect(badPort.stderr).toContain("--port must be an integer from 0 to 65535, got 'eighty'")
    const secret = await runCli(['emulator', '--client-secret', 'hunter2'])
    expect(secret.code).toBe(2)
    expect(secret.stderr).toContain('--client-secret is refused')
    expect(secret.stderr).not.toContain('hunter2')
    const unknown = await runCli(['emulator', '--colour'])
    expect(unknown).toMatchObject({ code: 2 })
    expect(unknown.stderr).toContain("Unknown option '--colour'")
    const help = await runCli(['emulator', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: portal-oauth emulator/)
  }, 30_000)
})

describe('portal-oauth emulator: holding requests and odd token answers from the control API', () => {
  it('holds a call until released, and patches the next token answer', async () => {
    const emulator = await startCliEmulator()
    const client = vendorClient(emulator.info)
    try {
      expect(await emulator.control('POST', '/hold-requests', { method: 'profile' })).toEqual({
        status: 200,
        body: {},
      })
      expect((await emulator.control('POST', '/wait-for-held', { timeoutMs: 50 })).body).toEqual({
        held: false,
      })
      const call = client.actions.v2.call.make({ method: 'profile', params: {} })
      expect((await emulator.control('POST', '/wait-for-held')).body).toEqual({ held: true })
      expect((await emulator.control('GET', '/log?kind=rest')).body).toEqual([
        expect.objectContaining({ restMethod: 'profile', status: 0 }),
      ])
      await emulator.control('POST', '/release-held')
      expect((await call).isSuccess).toBe(true)

      // This library's client sees the patched answer: its refresh callback gets the scope the control set.
      const { info } = emulator
      const ours = new PortalOAuth(
        (await emulator.control('POST', '/pair')).body as PortalOAuthParams,
        { clientId: info.clientId, clientSecret: info.clientSecret },
        { oauthServers: [info.oauthServer] },
      )
      const scopes: string[] = []
      ours.setCallbackRefreshAuth(({ b24OAuthParams }) => void scopes.push(b24OAuthParams.scope))
      await emulator.control('POST', '/mutate-token-responses', { set: { scope: 'crm,user,task,disk' } })
      await emulator.control('POST', '/expire-tokens')
      expect((await ours.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
      await ours.destroy()
      expect(scopes).toEqual(['crm,user,task,disk'])
      expect(await emulator.control('POST', '/mutate-token-responses', { remove: 'scope' })).toEqual({
        status: 400,
        body: { error: 'remove must be an array of key names' },
      })
    } finally {
      client.destroy()
    }
  }, 60_000)
})

describe("portal-oauth emulator: the portal's users from the control API", () => {
  it("a page user's pair is no administrator's until the settings make them one", async () => {
    const emulator = await startCliEmulator()
    const { info } = emulator
    const credentials = { clientId: info.clientId, clientSecret: info.clientSecret }
    const admin = async (body?: object): Promise<unknown> => {
      const pair = (await emulator.control('POST', '/pair', body)).body as PortalOAuthParams
      const client = new PortalOAuth(pair, credentials, { oauthServers: [info.oauthServer] })
      try {
        return (await client.actions.v2.call.make({ method: 'user.admin' })).getData()?.result
      } finally {
        await client.destroy()
      }
    }
    expect(await admin()).toBe(true)
    expect(await admin({ userId: 7 })).toBe(false)
    expect(await emulator.control('PUT', '/settings', { isAdmin: true, userId: 7 })).toMatchObject({
      status: 200,
    })
    expect(await admin({ userId: 7 })).toBe(true)
    await emulator.control('PUT', '/settings', { isAdmin: false })
    expect(await admin()).toBe(false)
    expect(await admin({ userId: 7 })).toBe(true)
  }, 60_000)
})

describe('portal-oauth emulator: flags named like secrets', () => {
  it('--access-token-ttl sets the lifetime of its tokens; flags that carry a secret are refused in any spelling', async () => {
    const emulator = await startCliEmulator(['--access-token-ttl', '60'])
    try {
      expect(emulator.info.pair.expiresIn).toBe(60)
      const pair = (await emulator.control('POST', '/pair')).body as PortalOAuthParams
      expect(pair.expiresIn).toBe(60)
    } finally {
      await emulator.stop()
    }
    for (const flag of ['--access-token=abc', '--Access_Token', '-token', '--refresh-id', '--webhook-url']) {
      const run = await runCli(['emulator', flag, 'x'])
      expect(run.code, flag).toBe(2)
      expect(run.stderr).toContain('is refused: a secret on the command line')
      expect(run.stderr).not.toContain('abc')
    }
  }, 60_000)
})
