import { describe, expect, it } from 'vitest'
import { emulator, fakeClock, obj, refresh, request, v2 } from './helpers.js'

const TOKEN_KEYS = [
  'access_token',
  'expires',
  'expires_in',
  'scope',
  'domain',
  'server_endpoint',
  'status',
  'client_endpoint',
  'member_id',
  'user_id',
  'refresh_token',
]

describe('token endpoint', () => {
  it('refreshes with GET and query parameters, answering the 11 keys in the live order', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now, memberId: 'a223c6b3710f85df22e9377d6c4f7553' })
    const pair = emu.issueAuthParams()
    const query = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: emu.clientId,
      client_secret: emu.clientSecret,
      refresh_token: pair.refreshToken,
      request_id: 'extra-params-are-ignored',
    })
    const res = await request(`${emu.tokenUrl}?${query}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(Object.keys(res.body)).toEqual(TOKEN_KEYS)
    const oauthHost = new URL(emu.tokenUrl).host
    expect(res.body).toMatchObject({
      expires: Math.floor(clock.now() / 1000) + 3600,
      expires_in: 3600,
      scope: 'crm,user,task,main',
      domain: oauthHost,
      server_endpoint: emu.serverEndpoint,
      status: 'L',
      client_endpoint: emu.clientEndpoint,
      member_id: 'a223c6b3710f85df22e9377d6c4f7553',
      user_id: 1,
    })
    const access = String(res.body.access_token)
    expect(access).toMatch(/^[0-9a-f]{70}$/)
    expect(String(res.body.refresh_token)).toMatch(/^[0-9a-f]{70}$/)
    expect(Buffer.from(access, 'hex').readUInt32LE(0)).toBe(res.body.expires)
    expect(emu.serverEndpoint.replace(/rest\/$/, 'oauth/token/')).toBe(emu.tokenUrl)
    const entry = emu.log.tokenRequests()[0]
    expect(entry).toMatchObject({
      server: 'oauth',
      kind: 'token',
      httpMethod: 'GET',
      grantType: 'refresh_token',
      token: pair.refreshToken,
      status: 200,
    })
    expect(entry?.query.client_secret).toBe(emu.clientSecret)
  })

  it('rotates on POST: the used refresh token answers invalid_grant, the new pair works', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    const first = await refresh(emu, pair.refreshToken)
    expect(first.status).toBe(200)
    const reused = await refresh(emu, pair.refreshToken)
    expect(reused.status).toBe(400)
    expect(reused.body.error).toBe('invalid_grant')
    expect(typeof reused.body.error_description).toBe('string')
    const second = await refresh(emu, String(first.body.refresh_token))
    expect(second.status).toBe(200)
    expect(emu.currentRefreshToken).toBe(second.body.refresh_token)
    expect(emu.currentAccessToken).toBe(second.body.access_token)
    // the old access token stays valid by default
    expect((await v2(emu, 'profile', pair.accessToken)).status).toBe(200)
    const refreshes = emu.log.refreshRequests()
    expect(refreshes.map((entry) => entry.status)).toEqual([200, 400, 200])
    expect(
      refreshes.every((entry) => entry.httpMethod === 'POST' && Object.keys(entry.query).length === 0),
    ).toBe(true)
    expect(emu.log.rejected('invalid_grant')).toHaveLength(1)
  })

  it('revokes the previous access token when asked to', async () => {
    const emu = await emulator({ revokePreviousAccessToken: true })
    const pair = emu.issueAuthParams()
    const next = await refresh(emu, pair.refreshToken)
    const old = await v2(emu, 'profile', pair.accessToken)
    expect(old.status).toBe(401)
    expect(old.body).toEqual({
      error: 'invalid_token',
      error_description: 'Unable to get application by token',
    })
    expect((await v2(emu, 'profile', String(next.body.access_token))).status).toBe(200)
  })

  it('lets a refresh token be reused when allowRefreshReuse is set', async () => {
    const emu = await emulator({ allowRefreshReuse: true })
    const pair = emu.issueAuthParams()
    expect((await refresh(emu, pair.refreshToken)).status).toBe(200)
    expect((await refresh(emu, pair.refreshToken)).status).toBe(200)
  })

  it('answers wrong_client with HTTP 200, invalid_client with 400, invalid_request for a missing token', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    const wrongClient = await refresh(emu, pair.refreshToken, { client_id: 'local.nope.0' })
    expect(wrongClient.status).toBe(200)
    expect(wrongClient.text).toBe('{"error":"wrong_client"}')
    const badSecret = await refresh(emu, pair.refreshToken, { client_secret: 'x' })
    expect(badSecret.status).toBe(400)
    expect(badSecret.body.error).toBe('invalid_client')
    const missing = await refresh(emu, '')
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: 'No "refresh_token" parameter found',
    })
    const unknown = await refresh(emu, 'ab'.repeat(35))
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toBe('invalid_grant')
    expect(emu.log.rejected().map((entry) => entry.errorCode)).toEqual([
      'wrong_client',
      'invalid_client',
      'invalid_request',
      'invalid_grant',
    ])
    // none of the failures consumed the refresh token
    expect((await refresh(emu, pair.refreshToken)).status).toBe(200)
  })

  it('expires refresh tokens after refreshTokenTtl', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now, refreshTokenTtl: 60 })
    const pair = emu.issueAuthParams()
    clock.advance(60_000)
    const res = await refresh(emu, pair.refreshToken)
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_grant')
    expect(emu.currentRefreshToken).toBeUndefined()
  })

  it('answers forced failures from failOAuth, then works again', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    emu.failOAuth({ error: 'PAYMENT_REQUIRED', error_description: 'Payment required', status: 402 }, 2)
    const first = await refresh(emu, pair.refreshToken)
    expect(first.status).toBe(402)
    expect(first.body).toEqual({ error: 'PAYMENT_REQUIRED', error_description: 'Payment required' })
    expect((await refresh(emu, pair.refreshToken)).status).toBe(402)
    emu.failOAuth({ error: 'temporarily_unavailable', status: 503 })
    const third = await refresh(emu, pair.refreshToken)
    expect(third.status).toBe(503)
    expect(third.body).toEqual({ error: 'temporarily_unavailable' })
    expect((await refresh(emu, pair.refreshToken)).status).toBe(200)
  })

  it('issues independent pairs with issueAuthParams, honouring expiresIn', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now })
    const a = emu.issueAuthParams()
    const b = emu.issueAuthParams({ expiresIn: 10 })
    expect(a.accessToken).not.toBe(b.accessToken)
    expect(b).toMatchObject({
      expires: Math.floor(clock.now() / 1000) + 10,
      expiresIn: 10,
      userId: 1,
      memberId: emu.memberId,
      applicationToken: emu.applicationToken,
      domain: new URL(emu.portalOrigin).host,
      clientEndpoint: emu.clientEndpoint,
      serverEndpoint: emu.serverEndpoint,
      status: 'L',
      scope: 'crm,user,task,main',
    })
    expect(emu.currentAccessToken).toBe(b.accessToken)
    clock.advance(10_000)
    expect(emu.currentAccessToken).toBeUndefined()
    expect((await v2(emu, 'profile', b.accessToken)).body.error).toBe('expired_token')
    expect((await v2(emu, 'profile', a.accessToken)).status).toBe(200)
    expect((await refresh(emu, a.refreshToken)).status).toBe(200)
    expect((await refresh(emu, b.refreshToken)).status).toBe(200)
  })

  it('serves app.info on the OAuth server and 404 elsewhere', async () => {
    const emu = await emulator({ status: 'P' })
    const pair = emu.issueAuthParams()
    const info = await request(`${emu.serverEndpoint}app.info?auth=${pair.accessToken}`)
    expect(info.status).toBe(200)
    expect(obj(info.body.result)).toMatchObject({
      client_id: emu.clientId,
      status: 'P',
      install: { installed: true, uri: `${emu.portalOrigin}/`, member_id: emu.memberId },
    })
    const noAuth = await request(`${emu.serverEndpoint}app.info`)
    expect(noAuth.status).toBe(401)
    expect(noAuth.body.error).toBe('NO_AUTH_FOUND')
    expect((await request(`${emu.serverEndpoint.replace('/rest/', '/nothing')}`)).status).toBe(404)
  })
})
