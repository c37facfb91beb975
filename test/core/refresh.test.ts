import { afterEach, describe, expect, it } from 'vitest'
import { type RefreshAuthPayload, RefreshTokenError, SdkError } from '../../src/index.js'
import { EmulatorRestError } from '../../src/testing/index.js'
import { createMemoryLogger, createTestClock, type Rig, startRig } from '../helpers.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

function mixedBurst(rigUnderTest: Rig, count: number) {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? rigUnderTest.portal.actions.v2.call.make({ method: 'profile', requestId: `v2-${index}` })
      : rigUnderTest.portal.actions.v3.call.make({ method: 'tasks.task.list', requestId: `v3-${index}` }),
  )
}

describe('automatic refresh', () => {
  it('a burst of v2 and v3 calls on an expired token sends one refresh and every call succeeds', async () => {
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now } })
    const initial = rig.portal.auth.getParams()
    const persisted: RefreshAuthPayload[] = []
    rig.portal.setCallbackRefreshAuth(async (payload) => {
      persisted.push(payload)
    })
    clock.advance(3_601_000)
    expect(rig.portal.tokenState).toBe('expired')
    const results = await Promise.all(mixedBurst(rig, 40))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    // The client saw the expiry itself: no request was spent on an expired token.
    expect(rig.emulator.log.rejected('expired_token')).toHaveLength(0)
    expect(persisted).toHaveLength(1)
    const saved = persisted[0]!.b24OAuthParams
    expect(saved.refreshToken).not.toBe(initial.refreshToken)
    expect(rig.emulator.log.refreshRequests()[0]?.token).toBe(initial.refreshToken)
    expect(saved.expires).toBeGreaterThan(Math.floor(clock.now() / 1000))
    expect(persisted[0]!.authData.member_id).toBe(rig.emulator.memberId)
    // Every REST request carried the new token.
    const tokens = new Set(rig.emulator.log.restRequests().map((entry) => entry.token))
    expect([...tokens]).toEqual([saved.accessToken])
    expect(rig.portal.tokenState).toBe('valid')
  })

  it('expired_token from the portal (client clock still valid) refreshes once and repeats each call once', async () => {
    rig = await startRig()
    rig.emulator.expireAccessTokens()
    const results = await Promise.all(mixedBurst(rig, 20))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    const rejected = rig.emulator.log.rejected('expired_token').length
    expect(rejected).toBeGreaterThan(0)
    expect(rig.emulator.log.restRequests()).toHaveLength(20 + rejected)
  })

  it('a call the portal keeps rejecting is sent again three times, each with a newer token, then ends with the error', async () => {
    rig = await startRig()
    rig.emulator.defineMethod('portaltest.token.rejected', () => {
      throw new EmulatorRestError('expired_token', 'The access token provided has expired.', 401)
    })
    const result = await rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'portaltest.token.rejected',
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors().map((error) => error.code)).toEqual(['expired_token'])
    const sent = rig.emulator.log
      .restRequests()
      .filter((entry) => entry.restMethod === 'portaltest.token.rejected')
    expect(sent).toHaveLength(4)
    expect(new Set(sent.map((entry) => entry.token)).size).toBe(4)
  })

  it('a late expired_token for a token older than the current one starts no new refresh', async () => {
    rig = await startRig({ emulator: { revokePreviousAccessToken: true } })
    const pair = rig.portal.auth.getAuthData()
    rig.emulator.expireAccessTokens()
    // This call is held by the portal, so its 401 arrives after the refresh triggered by the second call.
    rig.emulator.delayRequests(300, 1, { method: 'profile' })
    const slow = rig.portal.actions.v2.call.make({ method: 'profile' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const fast = await rig.portal.actions.v2.call.make({ method: 'server.time' })
    expect(fast.isSuccess).toBe(true)
    expect((await slow).isSuccess).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    // The held call was rejected for its old token and repeated with the new one, without a second refresh.
    const profile = rig.emulator.log.restRequests().filter((entry) => entry.restMethod === 'profile')
    expect(profile.map((entry) => entry.status)).toEqual([401, 200])
    expect(pair).not.toBe(false)
    expect(rig.portal.auth.getAuthData()).not.toMatchObject({
      access_token: pair !== false ? pair.access_token : '',
    })
  })

  it('tokenState tells the expiry as soon as the clock passes it, without a call', async () => {
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now } })
    expect(rig.portal.tokenState).toBe('valid')
    clock.advance(3_600_000)
    expect(rig.portal.tokenState).toBe('expired')
    expect(rig.emulator.log.entries).toHaveLength(0)
  })

  it('getAuthData() returns false once expired and refreshes in the background', async () => {
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now } })
    const before = rig.portal.auth.getAuthData()
    expect(before).toMatchObject({ member_id: rig.emulator.memberId, expires_in: 3600 })
    clock.advance(3_600_000)
    expect(rig.portal.auth.getAuthData()).toBe(false)
    expect(rig.portal.tokenState).toBe('refreshing')
    await waitFor(() => rig.portal.tokenState === 'valid')
    const after = rig.portal.auth.getAuthData()
    expect(after).not.toBe(false)
    expect(after !== false && before !== false && after.access_token !== before.access_token).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })

  it('a failing background refresh is logged, never an unhandled rejection', async () => {
    const clock = createTestClock()
    const logger = createMemoryLogger()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now, logger } })
    rig.emulator.failOAuth({ error: 'invalid_grant', error_description: 'Invalid grant', status: 400 })
    clock.advance(3_700_000)
    expect(rig.portal.auth.getAuthData()).toBe(false)
    // An OAuth error payload kills the pair: the machine says so with a state of its own.
    await waitFor(() => rig.portal.tokenState === 'dead')
    expect(
      logger.lines.some((line) => line.level === 'error' && line.message === 'token refresh failed'),
    ).toBe(true)
    // The process saw no unhandled rejection: vitest fails the run if one happens.
  })
})

describe('default refresh request (contract 3.2)', () => {
  it('POSTs a form body to {auth_url}oauth/token/ with nothing in the query', async () => {
    rig = await startRig()
    const old = rig.portal.auth.getAuthData()
    await rig.portal.auth.refreshAuth()
    const [request] = rig.emulator.log.refreshRequests()
    expect(request).toMatchObject({
      server: 'oauth',
      httpMethod: 'POST',
      path: '/oauth/token/',
      grantType: 'refresh_token',
      contentType: expect.stringContaining('application/x-www-form-urlencoded'),
      status: 200,
    })
    expect(request?.headers.accept).toBe('application/json')
    expect(request?.body).toEqual({
      grant_type: 'refresh_token',
      refresh_token: old !== false ? old.refresh_token : '',
      client_id: rig.emulator.clientId,
      client_secret: rig.emulator.clientSecret,
    })
    expectNothingInUrl([request], rigSecrets(rig))
  })

  it('a refresh whose answer is lost after the server processed it is sent once more, learns the pair is dead, and stops', async () => {
    rig = await startRig()
    // The server rotates the pair, then the connection drops. The client cannot tell this from a request that never
    // arrived, where sending again saves the pair; here the one retry answers invalid_grant and nothing follows.
    rig.emulator.dropConnections(1, { server: 'oauth', after: 'response' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'invalid_grant' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'invalid_grant' })
    await expect(rig.portal.actions.v2.call.make({ method: 'profile' })).rejects.toMatchObject({
      code: 'invalid_grant',
    })
    expect(rig.emulator.log.tokenRequests()).toHaveLength(2)
    expect(rig.emulator.log.rejected('invalid_grant')).toHaveLength(1)
  })

  it('rotation: the new pair replaces every field of contract 2.1 and the old refresh token is dead', async () => {
    rig = await startRig({ emulator: { status: 'P', scope: 'crm' } })
    const before = rig.portal.auth.getParams()
    const payloads: RefreshAuthPayload[] = []
    rig.portal.setCallbackRefreshAuth((payload) => {
      payloads.push(payload)
    })
    const data = await rig.portal.auth.refreshAuth()
    const after = rig.portal.auth.getParams()
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.refreshToken).not.toBe(before.refreshToken)
    expect(data.access_token).toBe(after.accessToken)
    expect(after).toMatchObject({
      status: 'P',
      scope: 'crm',
      expiresIn: 3600,
      clientEndpoint: rig.emulator.clientEndpoint,
    })
    expect(after.domain).toBe(before.domain)
    expect(payloads[0]?.b24OAuthParams).toEqual(after)
    // The emulator refuses the consumed token: a second chain from it is impossible.
    const reuse = await fetch(rig.emulator.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before.refreshToken,
        client_id: rig.emulator.clientId,
        client_secret: rig.emulator.clientSecret,
      }),
    })
    expect(reuse.status).toBe(400)
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' })
  })

  it('an OAuth error payload becomes RefreshTokenError with code, description and status', async () => {
    rig = await startRig()
    rig.emulator.failOAuth({ error: 'invalid_grant', error_description: 'Invalid grant', status: 400 })
    const error = await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(RefreshTokenError)
    expect(error).toBeInstanceOf(SdkError)
    expect(error).toMatchObject({ code: 'invalid_grant', description: 'Invalid grant', status: 400 })
    // The pair held is unchanged, and known dead: no further refresh request is sent for it.
    expect(rig.portal.tokenState).toBe('dead')
  })

  it('an error member on HTTP 200 (wrong_client) is a failure too', async () => {
    rig = await startRig()
    rig.emulator.failOAuth({ error: 'wrong_client', status: 200 })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      name: 'RefreshTokenError',
      code: 'wrong_client',
      status: 200,
    })
  })

  it('an OAuth error without a description gets an empty one', async () => {
    rig = await startRig()
    rig.emulator.failOAuth({ error: 'invalid_client', status: 401 })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      name: 'RefreshTokenError',
      code: 'invalid_client',
      description: '',
      status: 401,
    })
  })

  it('an empty error member beside a pair is no error: the pair is taken', async () => {
    rig = await startRig()
    rig.emulator.mutateTokenResponses({ set: { error: '' } })
    const data = await rig.portal.auth.refreshAuth()
    expect(data.refresh_token).toBe(rig.emulator.currentRefreshToken)
    expect(rig.portal.tokenState).toBe('valid')
  })

  it('a JSON array on HTTP 200 is no token answer: INVALID_RESPONSE, the pair held stays usable', async () => {
    rig = await startRig()
    rig.emulator.failTokenRequests({ status: 200, body: '[]', contentType: 'application/json' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      code: 'INVALID_RESPONSE',
      status: 200,
      message: 'token refresh: the OAuth server answered HTTP 200 without a token or an OAuth error',
    })
    expect(rig.emulator.log.tokenRequests()).toHaveLength(1)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('a REST call whose automatic refresh fails rejects with that RefreshTokenError', async () => {
    rig = await startRig()
    rig.emulator.expireAccessTokens()
    rig.emulator.failOAuth({ error: 'invalid_grant', status: 400 }, 10)
    const calls = await Promise.allSettled([
      rig.portal.actions.v2.call.make({ method: 'profile' }),
      rig.portal.actions.v3.call.make({ method: 'tasks.task.list' }),
    ])
    for (const call of calls) {
      expect(call.status).toBe('rejected')
      expect(call.status === 'rejected' && call.reason).toBeInstanceOf(RefreshTokenError)
    }
    // A caller whose 401 arrives after the failed refresh tries once more itself; never more than one at a time.
    expect(rig.emulator.log.refreshRequests().length).toBeGreaterThanOrEqual(1)
    expect(rig.emulator.log.refreshRequests().length).toBeLessThanOrEqual(2)
  })
})

describe('custom refresh', () => {
  it('is used instead of the OAuth server; a missing expires is computed from expires_in', async () => {
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now } })
    const fresh = rig.emulator.issueAuthParams()
    let seen = ''
    rig.portal.setCustomRefreshAuth(async ({ refreshToken }) => {
      seen = refreshToken
      return {
        access_token: fresh.accessToken,
        refresh_token: fresh.refreshToken,
        expires_in: 1800,
        client_endpoint: fresh.clientEndpoint,
        server_endpoint: fresh.serverEndpoint,
        member_id: fresh.memberId,
        scope: fresh.scope,
        status: fresh.status,
        domain: 'oauth.example',
      } as never
    })
    const before = rig.portal.auth.getParams()
    await rig.portal.auth.refreshAuth()
    expect(seen).toBe(before.refreshToken)
    expect(rig.emulator.log.tokenRequests()).toHaveLength(0)
    const after = rig.portal.auth.getParams()
    expect(after.expires).toBe(Math.floor(clock.now() / 1000) + 1800)
    expect(after.accessToken).toBe(fresh.accessToken)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('an Error thrown by it is rethrown unchanged', async () => {
    rig = await startRig()
    const failure = new TypeError('vault unreachable')
    rig.portal.setCustomRefreshAuth(async () => {
      throw failure
    })
    await expect(rig.portal.auth.refreshAuth()).rejects.toBe(failure)
  })

  it('a thrown non-Error becomes "Strange error: ..." with the value as cause', async () => {
    rig = await startRig()
    rig.portal.setCustomRefreshAuth(() => Promise.reject({ reason: 'nope' }))
    const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
    expect(error).toBeInstanceOf(Error)
    expect(error.message).toBe('Strange error: {"reason":"nope"}')
    expect(error.cause).toEqual({ reason: 'nope' })
  })

  it('a thrown non-Error that holds a token: the message shows none, the raw value is kept as the cause', async () => {
    rig = await startRig()
    const { refreshToken } = rig.portal.auth.getParams()
    let raw: unknown
    rig.portal.setCustomRefreshAuth(async (context) => {
      raw = { refreshToken: context.refreshToken, note: `token ${context.refreshToken}` }
      throw raw
    })
    const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
    expect(error.message).toBe('Strange error: {"refreshToken":"[redacted]","note":"token [redacted]"}')
    expect(String(error.stack)).not.toContain(refreshToken)
    // Spec 7: the raw value is kept as its cause, the same object.
    expect(error.cause).toBe(raw)
  })

  it('a thrown value JSON cannot write (a BigInt) is described as a string', async () => {
    rig = await startRig()
    rig.portal.setCustomRefreshAuth(() => Promise.reject(5n))
    const error = (await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)) as Error
    expect(error.message).toBe('Strange error: 5')
    expect(error.cause).toBe(5n)
  })

  it('a refresh that ends after setAuthOptions() replaced the pair: the replaced pair stays in use, no callback', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const persisted: RefreshAuthPayload[] = []
    rig.portal.setCallbackRefreshAuth((payload) => {
      persisted.push(payload)
    })
    let answer: (value: unknown) => void = () => {}
    const fresh = rig.emulator.issueAuthParams()
    rig.portal.setCustomRefreshAuth(
      () =>
        new Promise((resolve) => {
          answer = resolve
        }) as never,
    )
    const refreshing = rig.portal.auth.refreshAuth()
    await waitFor(() => rig.portal.tokenState === 'refreshing')
    const replaced = rig.emulator.issueAuthParams()
    rig.portal.setAuthOptions(replaced)
    await expect(refreshing).resolves.toMatchObject({ access_token: replaced.accessToken })
    answer({ access_token: fresh.accessToken, refresh_token: fresh.refreshToken, expires_in: 3600 })
    await waitFor(() =>
      logger.lines.some((line) => line.message.includes('finished after the pair was replaced')),
    )
    expect(rig.portal.auth.getParams().accessToken).toBe(replaced.accessToken)
    expect(persisted).toHaveLength(0)
  })

  it('removeCustomRefreshAuth() goes back to the OAuth server', async () => {
    rig = await startRig()
    rig.portal.setCustomRefreshAuth(async () => {
      throw new Error('not me')
    })
    rig.portal.removeCustomRefreshAuth()
    await rig.portal.auth.refreshAuth()
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })
})

describe('refresh callback', () => {
  it('is awaited before callers continue', async () => {
    rig = await startRig()
    const order: string[] = []
    rig.portal.setCallbackRefreshAuth(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100))
      order.push('persisted')
    })
    rig.emulator.expireAccessTokens()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    order.push('call resolved')
    expect(order).toEqual(['persisted', 'call resolved'])
  })

  it('when it throws, the new pair is kept, the failure is logged at error level and refreshAuth() rejects with it', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const failure = new Error('database down')
    rig.portal.setCallbackRefreshAuth(() => {
      throw failure
    })
    const before = rig.portal.auth.getParams()
    await expect(rig.portal.auth.refreshAuth()).rejects.toBe(failure)
    const after = rig.portal.auth.getParams()
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'refresh callback failed; the new token pair is kept in memory but was not persisted',
    ])
    // The instance keeps using the new pair.
    rig.portal.removeCallbackRefreshAuth()
    const result = await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests().at(-1)?.token).toBe(after.accessToken)
  })
})

describe('registering the refresh functions', () => {
  it('removeCallbackRefreshAuth(): the next refresh runs no callback; with none set it does nothing', async () => {
    rig = await startRig()
    rig.portal.removeCallbackRefreshAuth()
    const seen: string[] = []
    rig.portal.setCallbackRefreshAuth(({ authData }) => {
      seen.push(authData.refresh_token)
    })
    await rig.portal.auth.refreshAuth()
    rig.portal.removeCallbackRefreshAuth()
    await rig.portal.auth.refreshAuth()
    expect(rig.emulator.log.refreshRequests()).toHaveLength(2)
    expect(seen).toHaveLength(1)
  })

  it('a callback or custom refresh that is not a function is refused, and the one registered stays', async () => {
    rig = await startRig()
    let called = 0
    rig.portal.setCallbackRefreshAuth(() => {
      called += 1
    })
    expect(() => rig.portal.setCallbackRefreshAuth('save' as never)).toThrow(
      expect.objectContaining({
        code: 'JSSDK_INVALID_ARGUMENT',
        message: 'setCallbackRefreshAuth: callback must be a function',
      }),
    )
    expect(() => rig.portal.setCustomRefreshAuth({} as never)).toThrow(
      expect.objectContaining({
        code: 'JSSDK_INVALID_ARGUMENT',
        message: 'setCustomRefreshAuth: refresh must be a function',
      }),
    )
    await rig.portal.auth.refreshAuth()
    expect(called).toBe(1)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    expect(rig.portal.auth.clientId).toBe(rig.emulator.clientId)
  })
})

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now()
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
