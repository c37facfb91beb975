import { afterEach, describe, expect, it } from 'vitest'
import {
  type HandlerRefreshAuth,
  PortalOAuth,
  type PortalOAuthParams,
  type RefreshAuthPayload,
  RefreshTokenError,
  SdkError,
  SdkErrorCode,
} from '../../src/index.js'
import {
  captureProcessWarnings,
  createMemoryLogger,
  createTestClock,
  type Rig,
  startRig,
} from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

function calls(target: Rig, count: number, options: { timeout?: number } = {}) {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? target.portal.actions.v2.call.make({ method: 'profile', requestId: `v2-${index}`, ...options })
      : target.portal.actions.v3.call.make({
          method: 'tasks.task.list',
          requestId: `v3-${index}`,
          ...options,
        }),
  )
}

/** Resolves once the emulator has received `count` refresh requests (answered or not). */
async function refreshRequestsArrived(target: Rig, count: number): Promise<void> {
  // Token requests are logged on arrival; their grant type only once processed.
  while (target.emulator.log.tokenRequests().length < count) await new Promise((r) => setTimeout(r, 2))
}

/** A new client restored from a persisted pair, as an application does after a restart. */
function restore(target: Rig, pair: PortalOAuthParams): PortalOAuth {
  return new PortalOAuth(
    pair,
    { clientId: target.emulator.clientId, clientSecret: target.emulator.clientSecret },
    {
      logger: createMemoryLogger(),
    },
  )
}

describe('a rotated pair is committed the moment it arrives', () => {
  it('a custom refresh answer with odd fields keeps the pair, repairs the rest, warns, and the callback gets it', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const persisted: RefreshAuthPayload[] = []
    rig.portal.setCallbackRefreshAuth((payload) => {
      persisted.push(payload)
    })
    const issued = rig.emulator.issueAuthParams()
    rig.portal.setCustomRefreshAuth(async () => ({
      access_token: issued.accessToken,
      refresh_token: issued.refreshToken,
      expires: 'soon' as unknown as number,
      expires_in: 3600,
      status: 'X' as unknown as 'L',
      client_endpoint: 'not a url',
      server_endpoint: issued.serverEndpoint,
      member_id: rig.emulator.memberId,
      scope: 'crm',
      domain: 'oauth.example',
    }))
    const before = rig.portal.auth.getParams()
    const data = await rig.portal.auth.refreshAuth()
    expect(data.access_token).toBe(issued.accessToken)
    const saved = persisted[0]?.b24OAuthParams
    expect(saved?.refreshToken).toBe(issued.refreshToken)
    expect(saved?.status).toBe('X')
    expect(saved?.clientEndpoint).toBe(before.clientEndpoint)
    expect(saved?.expires).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 3599)
    const warning = logger.lines.find((line) => line.level === 'warn' && line.message.includes('odd fields'))
    expect(warning?.message).toContain('expires')
    expect(warning?.message).toContain('client_endpoint')
    expect(warning?.message).toContain('status')
    // The pair persisted with an unknown status letter restores after a restart and keeps working.
    const restarted = restore(rig, saved!)
    try {
      expect((await restarted.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    } finally {
      await restarted.destroy()
    }
  })
})

describe('a refresh answer, field by field (custom refresh, client clock fixed)', () => {
  const NOW_S = Math.floor(Date.now() / 1000)
  const NOW_MS = NOW_S * 1000 + 400

  /** Refreshes once with `answer` (a custom refresh) and tells what the client holds after it and what it warned. */
  async function refreshWith(answer: (issued: PortalOAuthParams) => unknown) {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, now: () => NOW_MS } })
    const before = rig.portal.auth.getParams()
    const issued = rig.emulator.issueAuthParams()
    rig.portal.setCustomRefreshAuth(async () => answer(issued) as HandlerRefreshAuth)
    const error = await rig.portal.auth.refreshAuth().then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    const warned = logger.lines.find((line) => line.level === 'warn' && line.message.includes('odd fields'))
    return { before, issued, after: rig.portal.auth.getParams(), error, repaired: warned?.context?.fields }
  }

  const pair = (issued: PortalOAuthParams) => ({
    access_token: issued.accessToken,
    refresh_token: issued.refreshToken,
  })

  for (const [name, answer, problem] of [
    ['null', () => null, 'is not an object'],
    ['an array', () => [], 'is not an object'],
    [
      'no access_token',
      (issued: PortalOAuthParams) => ({ refresh_token: issued.refreshToken }),
      'has no access_token',
    ],
    [
      'an empty access_token',
      (issued: PortalOAuthParams) => ({ access_token: '', refresh_token: issued.refreshToken }),
      'has no access_token',
    ],
    [
      'no refresh_token',
      (issued: PortalOAuthParams) => ({ access_token: issued.accessToken }),
      'has no refresh_token',
    ],
    [
      'an empty refresh_token',
      (issued: PortalOAuthParams) => ({ access_token: issued.accessToken, refresh_token: '' }),
      'has no refresh_token',
    ],
  ] as const) {
    it(`an answer that is ${name} fails with INVALID_RESPONSE and keeps the pair held`, async () => {
      const { before, after, error } = await refreshWith(answer)
      expect(error).toBeInstanceOf(SdkError)
      expect(error).toMatchObject({
        code: SdkErrorCode.InvalidResponse,
        message: `token refresh: the answer ${problem}`,
      })
      expect(after).toEqual(before)
      expect(rig.portal.tokenState).toBe('valid')
    })
  }

  it('expires and expires_in given: both taken as they are, nothing repaired', async () => {
    const { after, repaired, error } = await refreshWith((issued) => ({
      ...pair(issued),
      expires: NOW_S + 5000,
      expires_in: 1800,
    }))
    expect(error).toBeUndefined()
    expect(after).toMatchObject({ expires: NOW_S + 5000, expiresIn: 1800 })
    expect(repaired).toBeUndefined()
  })

  it('digits in strings, as form-encoded answers carry them, are numbers; fractions are floored', async () => {
    const { after, repaired } = await refreshWith((issued) => ({
      ...pair(issued),
      expires: `${NOW_S + 5000}.9`,
      expires_in: '1800.7',
    }))
    expect(after).toMatchObject({ expires: NOW_S + 5000, expiresIn: 1800 })
    expect(repaired).toBeUndefined()
  })

  it('only expires: expires_in is what is left of it', async () => {
    const { after, repaired } = await refreshWith((issued) => ({ ...pair(issued), expires: NOW_S + 900 }))
    expect(after).toMatchObject({ expires: NOW_S + 900, expiresIn: 900 })
    expect(repaired).toBeUndefined()
  })

  it('only an expires already past: expires_in is 0, never negative', async () => {
    const { after } = await refreshWith((issued) => ({ ...pair(issued), expires: NOW_S - 100 }))
    expect(after).toMatchObject({ expires: NOW_S - 100, expiresIn: 0 })
  })

  it('only expires_in: expires is now plus expires_in', async () => {
    const { after, repaired } = await refreshWith((issued) => ({ ...pair(issued), expires_in: 0 }))
    expect(after).toMatchObject({ expires: NOW_S, expiresIn: 0 })
    expect(repaired).toBeUndefined()
  })

  it('neither: the previous expires_in counts from now; a null expires is not odd', async () => {
    const { before, after, repaired } = await refreshWith((issued) => ({ ...pair(issued), expires: null }))
    expect(after).toMatchObject({ expires: NOW_S + before.expiresIn, expiresIn: before.expiresIn })
    expect(repaired).toBeUndefined()
  })

  for (const [name, odd] of [
    ['negative', { expires: -5, expires_in: -1 }],
    ['in milliseconds, and blank', { expires: (NOW_S + 900) * 1000, expires_in: ' ' }],
    ['not finite', { expires: Number.POSITIVE_INFINITY, expires_in: Number.NaN }],
    ['of other types', { expires: true, expires_in: {} }],
  ] as const) {
    it(`expires and expires_in ${name}: both repaired, the previous expires_in counts from now`, async () => {
      const { before, after, repaired } = await refreshWith((issued) => ({ ...pair(issued), ...odd }))
      expect(after).toMatchObject({ expires: NOW_S + before.expiresIn, expiresIn: before.expiresIn })
      expect(repaired).toEqual(['expires_in', 'expires'])
    })
  }

  it("another portal's client_endpoint keeps the previous one and its domain; an odd server_endpoint keeps the previous", async () => {
    const { before, after, repaired } = await refreshWith((issued) => ({
      ...pair(issued),
      expires_in: 3600,
      client_endpoint: 'https://moved.example.com/rest/',
      server_endpoint: 'https://oauth.example.com/rest/?x=1',
    }))
    expect(after).toMatchObject({
      accessToken: expect.not.stringMatching(before.accessToken),
      clientEndpoint: before.clientEndpoint,
      domain: before.domain,
      serverEndpoint: before.serverEndpoint,
    })
    expect(repaired).toEqual([
      'server_endpoint (previous kept)',
      'member_id and client_endpoint (another portal, previous kept)',
    ])
  })

  it('empty or null endpoints keep the previous ones without a word; a new trusted server_endpoint is taken', async () => {
    const { before, after, repaired } = await refreshWith((issued) => ({
      ...pair(issued),
      expires_in: 3600,
      client_endpoint: '',
      server_endpoint: 'https://oauth.bitrix24.tech/rest/',
    }))
    expect(after).toMatchObject({
      clientEndpoint: before.clientEndpoint,
      domain: before.domain,
      serverEndpoint: 'https://oauth.bitrix24.tech/rest/',
    })
    expect(repaired).toBeUndefined()
    const again = await refreshWith((issued) => ({
      ...pair(issued),
      expires_in: 3600,
      client_endpoint: null,
    }))
    expect(again.after.clientEndpoint).toBe(again.before.clientEndpoint)
    expect(again.repaired).toBeUndefined()
  })

  it('status and scope: strings are taken, a known letter says nothing, odd values keep the previous; member_id never changes', async () => {
    const taken = await refreshWith((issued) => ({
      ...pair(issued),
      expires_in: 3600,
      status: 'P',
      scope: 'crm,task',
      member_id: 'other-member',
    }))
    expect(taken.after).toMatchObject({ status: 'P', scope: 'crm,task', memberId: taken.before.memberId })
    expect(taken.repaired).toEqual(['member_id and client_endpoint (another portal, previous kept)'])
    await rig.close()
    const odd = await refreshWith((issued) => ({
      ...pair(issued),
      expires_in: 3600,
      status: 7,
      scope: '',
      member_id: ['x'],
    }))
    expect(odd.after).toMatchObject({
      status: odd.before.status,
      scope: odd.before.scope,
      memberId: odd.before.memberId,
    })
    expect(odd.repaired).toEqual([
      'status (previous kept)',
      'scope (previous kept)',
      'member_id (previous kept)',
    ])
  })
})

describe('destroy() during a refresh', () => {
  it('lets the refresh finish, persists the pair, then closes; waiting calls fail with JSSDK_CLIENT_DESTROYED', async () => {
    rig = await startRig()
    const persisted: PortalOAuthParams[] = []
    rig.portal.setCallbackRefreshAuth(async ({ b24OAuthParams }) => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      persisted.push(b24OAuthParams)
    })
    rig.emulator.expireAccessTokens()
    rig.emulator.delayRequests(200, 1, { server: 'oauth' })
    const pending = Promise.allSettled(calls(rig, 6))
    await refreshRequestsArrived(rig, 1)
    await rig.portal.destroy()
    const outcomes = await pending
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected')
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: SdkErrorCode.Destroyed })
    }
    expect(persisted).toHaveLength(1)
    expect(persisted[0]?.refreshToken).toBe(rig.emulator.currentRefreshToken)
    // The persisted pair is alive: a restarted client refreshes from it.
    const restarted = restore(rig, persisted[0]!)
    try {
      await restarted.auth.refreshAuth()
      expect(rig.emulator.log.rejected('invalid_grant')).toHaveLength(0)
    } finally {
      await restarted.destroy()
    }
  })
})

describe('every wait is bounded', () => {
  it('a refresh callback that never settles: calls go on after callbackTimeout, refreshAuth() says so', async () => {
    rig = await startRig({ client: { callbackTimeout: 100 } })
    rig.portal.setCallbackRefreshAuth(() => new Promise<void>(() => {}))
    rig.emulator.expireAccessTokens()
    const results = await Promise.all(calls(rig, 4))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.portal.tokenState).toBe('valid')
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: SdkErrorCode.CallbackTimeout })
    expect(rig.portal.tokenState).toBe('valid')
    expect(rig.emulator.log.refreshRequests()).toHaveLength(2)
  })

  it('a custom refresh that never settles: calls fail with REQUEST_TIMEOUT after refreshTimeout, nothing stays refreshing', async () => {
    rig = await startRig({ client: { refreshTimeout: 100, refreshRetries: 1 } })
    let started = 0
    rig.portal.setCustomRefreshAuth(() => {
      started += 1
      return new Promise(() => {})
    })
    rig.emulator.expireAccessTokens()
    const outcomes = await Promise.allSettled(calls(rig, 4))
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: SdkErrorCode.RequestTimeout })
    }
    expect(started).toBe(2)
    expect(rig.portal.tokenState).not.toBe('refreshing')
  })

  /**
   * A custom refresh answering with `issued` 150 ms after it is asked, past the tests' 50 ms refreshTimeout. A custom
   * refresh may return only the pair and its lifetime; the rest keeps its previous values.
   */
  function answerLate(portal: PortalOAuth, issued: PortalOAuthParams): { answered: boolean } {
    const late = { answered: false }
    portal.setCustomRefreshAuth(async () => {
      await new Promise((resolve) => setTimeout(resolve, 150))
      late.answered = true
      return {
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        expires_in: 3600,
      } as HandlerRefreshAuth
    })
    return late
  }

  it('a custom refresh answering after refreshTimeout: its pair is still committed and persisted', async () => {
    rig = await startRig({ client: { refreshTimeout: 50, refreshRetries: 0 } })
    const issued = rig.emulator.issueAuthParams()
    const persisted: PortalOAuthParams[] = []
    rig.portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
      persisted.push(b24OAuthParams)
    })
    answerLate(rig.portal, issued)
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout })
    while (persisted.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(persisted[0]?.refreshToken).toBe(issued.refreshToken)
    expect(rig.portal.tokenState).toBe('valid')
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(rig.emulator.log.restRequests().at(-1)?.token).toBe(issued.accessToken)
  })

  it('a custom refresh answering after refreshTimeout, no refresh callback set: its pair is committed and used', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger, refreshTimeout: 50, refreshRetries: 0 } })
    const issued = rig.emulator.issueAuthParams()
    const late = answerLate(rig.portal, issued)
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout })
    while (!late.answered) await new Promise((resolve) => setTimeout(resolve, 5))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(rig.portal.auth.getParams().refreshToken).toBe(issued.refreshToken)
    expect(rig.portal.tokenState).toBe('valid')
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'token refresh: no answer within 50 ms; the attempt is abandoned',
    ])
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(rig.emulator.log.restRequests().at(-1)?.token).toBe(issued.accessToken)
  })

  it('an OAuth server slower than refreshTimeout: the pair it rotated anyway is committed and persisted, not lost', async () => {
    rig = await startRig({ client: { refreshTimeout: 100, refreshRetries: 1 } })
    const persisted: PortalOAuthParams[] = []
    rig.portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
      persisted.push(b24OAuthParams)
    })
    // A first call opens the HTTP pool, so that the refresh below reaches the OAuth server at once.
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    // The server answers the refresh 150 ms after it arrived, past the attempt's timeout, and rotates the pair then.
    rig.emulator.delayRequests(150, 1, { server: 'oauth' })
    await rig.portal.auth.refreshAuth().catch(() => undefined)
    while (persisted.length === 0 || rig.portal.tokenState === 'refreshing') {
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(rig.portal.tokenState).toBe('valid')
    expect(rig.portal.auth.getParams().refreshToken).toBe(rig.emulator.currentRefreshToken)
    expect(persisted.at(-1)?.refreshToken).toBe(rig.emulator.currentRefreshToken)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it("a call's own timeout bounds its wait for a refresh while the refresh goes on for the others", async () => {
    rig = await startRig()
    rig.emulator.expireAccessTokens()
    rig.emulator.delayRequests(300, 1, { server: 'oauth' })
    const patient = rig.portal.actions.v2.call.make({ method: 'profile', requestId: 'patient' })
    await refreshRequestsArrived(rig, 1)
    const hasty = rig.portal.actions.v2.call.make({ method: 'profile', requestId: 'hasty', timeout: 50 })
    await expect(hasty).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout })
    expect(rig.portal.tokenState).toBe('refreshing')
    expect((await patient).isSuccess).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })

  it("a call's signal ends its wait for a refresh with REQUEST_ABORTED", async () => {
    rig = await startRig()
    rig.emulator.expireAccessTokens()
    rig.emulator.delayRequests(300, 1, { server: 'oauth' })
    const patient = rig.portal.actions.v2.call.make({ method: 'profile' })
    await refreshRequestsArrived(rig, 1)
    const controller = new AbortController()
    const cancelled = rig.portal.actions.v2.call.make({ method: 'profile', signal: controller.signal })
    controller.abort()
    await expect(cancelled).rejects.toMatchObject({ code: SdkErrorCode.RequestAborted })
    expect((await patient).isSuccess).toBe(true)
  })
})

describe('a dead refresh token costs one request', () => {
  it('40 calls, refreshAuth() and 100 getAuthData() send one refresh; setAuthOptions() brings the client back', async () => {
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now } })
    rig.emulator.failOAuth({ error: 'invalid_grant', error_description: 'The refresh token is unknown' })
    clock.advance(3_601_000)
    const outcomes = await Promise.allSettled(calls(rig, 40))
    const errors = outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason)
    expect(errors[0]).toBeInstanceOf(RefreshTokenError)
    expect(errors[0]).toMatchObject({ code: 'invalid_grant', status: 400 })
    for (const error of errors) expect(error).toBe(errors[0])
    expect(rig.portal.tokenState).toBe('dead')
    await expect(rig.portal.auth.refreshAuth()).rejects.toBe(errors[0])
    await expect(rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })).rejects.toBe(errors[0])
    for (let index = 0; index < 100; index += 1) expect(rig.portal.auth.getAuthData()).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    expect(rig.emulator.log.restRequests()).toHaveLength(0)

    rig.portal.setAuthOptions(rig.emulator.issueAuthParams())
    expect(rig.portal.tokenState).toBe('valid')
    const results = await Promise.all(calls(rig, 4))
    expect(results.every((result) => result.isSuccess)).toBe(true)
  })

  it('setAuthOptions() validates like the constructor', async () => {
    rig = await startRig()
    expect(() => rig.portal.setAuthOptions({ ...rig.portal.auth.getParams(), expires: Date.now() })).toThrow(
      /authOptions\.expires looks like milliseconds/,
    )
    expect(() => rig.portal.setAuthOptions({ ...rig.portal.auth.getParams(), refreshToken: '' })).toThrow(
      SdkError,
    )
  })
})

describe('transient refresh failures are retried, one attempt per step for every waiter', () => {
  it('a 500 server_error, then a dropped connection: 20 calls all succeed after 3 refresh requests', async () => {
    rig = await startRig()
    rig.emulator.failOAuth({ error: 'server_error', status: 500 })
    rig.emulator.dropConnections(1, { server: 'oauth', after: 'body' })
    rig.emulator.expireAccessTokens()
    const results = await Promise.all(calls(rig, 20))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.tokenRequests()).toHaveLength(3)
  })

  it('an answer lost after the server rotated: the retry learns at once that the pair is dead', async () => {
    rig = await startRig()
    rig.emulator.dropConnections(1, { server: 'oauth', after: 'response' })
    rig.emulator.expireAccessTokens()
    const outcomes = await Promise.allSettled(calls(rig, 10))
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'invalid_grant' })
    }
    expect(rig.emulator.log.refreshRequests()).toHaveLength(2)
    expect(rig.portal.tokenState).toBe('dead')
  })
})

describe('which refresh failures are tried again', () => {
  for (const failure of [
    { error: 'temporarily_unavailable', status: 400 },
    { error: 'server_error', status: 400 },
    { error: 'invalid_grant', status: 500 },
  ]) {
    it(`an OAuth ${failure.error} with HTTP ${failure.status} means "try later": the retry gets the pair`, async () => {
      rig = await startRig()
      rig.emulator.failOAuth(failure)
      const before = rig.portal.auth.getParams()
      await rig.portal.auth.refreshAuth()
      expect(rig.emulator.log.refreshRequests()).toHaveLength(2)
      expect(rig.portal.auth.getParams().refreshToken).not.toBe(before.refreshToken)
      expect(rig.portal.tokenState).toBe('valid')
    })
  }

  it('an OAuth invalid_grant with HTTP 499 kills the pair: one request, nothing more', async () => {
    rig = await startRig()
    rig.emulator.failOAuth({ error: 'invalid_grant', status: 499 })
    await expect(rig.portal.auth.refreshAuth()).rejects.toBeInstanceOf(RefreshTokenError)
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: 'invalid_grant', status: 499 })
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    expect(rig.portal.tokenState).toBe('dead')
  })

  it('a 429 without an OAuth error is tried again', async () => {
    rig = await startRig()
    rig.emulator.failTokenRequests({ status: 429 })
    await rig.portal.auth.refreshAuth()
    expect(rig.emulator.log.tokenRequests()).toHaveLength(2)
    expect(rig.portal.tokenState).toBe('valid')
  })

  it('a 400 without an OAuth error fails this refresh only: not tried again, the pair is not dead', async () => {
    rig = await startRig()
    rig.emulator.failTokenRequests({ status: 400 })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      code: SdkErrorCode.InvalidResponse,
      status: 400,
    })
    expect(rig.emulator.log.tokenRequests()).toHaveLength(1)
    expect(rig.portal.tokenState).toBe('valid')
    // The pair held is still good: the next refresh goes through.
    await rig.portal.auth.refreshAuth()
    expect(rig.emulator.log.tokenRequests()).toHaveLength(2)
  })

  it('a 200 whose body is not JSON fails this refresh with INVALID_RESPONSE; the pair stays usable', async () => {
    rig = await startRig()
    rig.emulator.failTokenRequests({ status: 200, body: 'ok', contentType: 'text/plain' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      code: SdkErrorCode.InvalidResponse,
      status: 200,
      message: 'token refresh: the OAuth server answered HTTP 200 without a token or an OAuth error',
      request: { method: 'oauth/token' },
    })
    expect(rig.emulator.log.tokenRequests()).toHaveLength(1)
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('a 200 whose body is a JSON array fails this refresh with INVALID_RESPONSE; the pair stays usable', async () => {
    rig = await startRig({ client: { refreshRetries: 0 } })
    const before = rig.portal.auth.getParams()
    rig.emulator.failTokenRequests({ status: 200, body: '[]', contentType: 'application/json' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ code: SdkErrorCode.InvalidResponse })
    expect(rig.portal.auth.getParams()).toEqual(before)
  })

  it('an OAuth error whose error_description is not a string: the error has an empty description', async () => {
    rig = await startRig({ client: { refreshRetries: 0 } })
    const body = JSON.stringify({ error: 'invalid_grant', error_description: 42 })
    rig.emulator.failTokenRequests({ status: 400, body, contentType: 'application/json' })
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      code: 'invalid_grant',
      description: '',
    })
  })

  it('refreshRetries bounds the attempts after transient failures; refreshRetryDelay spaces them', async () => {
    rig = await startRig({ client: { refreshRetries: 2, refreshRetryDelay: 200 } })
    rig.emulator.failTokenRequests({ status: 503 }, 10)
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({
      code: SdkErrorCode.InvalidResponse,
      status: 503,
    })
    const arrivals = rig.emulator.log.tokenRequests().map((entry) => entry.at)
    expect(arrivals).toHaveLength(3)
    // Full jitter over the doubled delay: at least half of 200 ms, then half of 400 ms.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(100)
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(200)
    expect(rig.portal.tokenState).toBe('valid')
  })

  it('refreshRetries 0: one attempt only', async () => {
    rig = await startRig({ client: { refreshRetries: 0 } })
    rig.emulator.failTokenRequests({ status: 503 }, 10)
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ status: 503 })
    expect(rig.emulator.log.tokenRequests()).toHaveLength(1)
  })

  it('by default a refresh that keeps failing transiently is sent four times in all', async () => {
    rig = await startRig({ client: { refreshRetryDelay: 1 } })
    rig.emulator.failTokenRequests({ status: 502 }, 10)
    await expect(rig.portal.auth.refreshAuth()).rejects.toMatchObject({ status: 502 })
    expect(rig.emulator.log.tokenRequests()).toHaveLength(4)
  })
})

describe('refresh ahead of expiry', () => {
  it('the first call inside the eager margin refreshes in the background; no call meets an expired token', async () => {
    const clock = createTestClock()
    rig = await startRig({ emulator: { now: clock.now }, client: { now: clock.now, eagerRefreshMs: 60_000 } })
    const before = rig.portal.auth.getParams()
    clock.advance(3_600_000 - 30_000)
    const first = await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(first.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()[0]?.token).toBe(before.accessToken)
    while (rig.portal.tokenState === 'refreshing') await new Promise((resolve) => setTimeout(resolve, 2))
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    clock.advance(60_000)
    const later = await rig.portal.actions.v3.call.make({ method: 'tasks.task.list' })
    expect(later.isSuccess).toBe(true)
    expect(rig.emulator.log.rejected('expired_token')).toHaveLength(0)
    expect(rig.emulator.log.restRequests().at(-1)?.token).toBe(rig.portal.auth.getParams().accessToken)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
  })
})

describe('no secret from user code', () => {
  it('after 40 refreshes, a failure quoting the client secret and the application token is still redacted from the log', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    for (let index = 0; index < 40; index += 1) await rig.portal.auth.refreshAuth()
    const { clientSecret, applicationToken } = rig.emulator
    const current = rig.portal.auth.getParams()
    const failure = Object.assign(
      new Error(`vault said ${clientSecret} / ${applicationToken} / ${current.refreshToken}`),
      {
        detail: { secretCopy: clientSecret },
        cause: `raw ${current.accessToken}`,
      },
    )
    rig.portal.setCustomRefreshAuth(async () => {
      throw failure
    })
    // Spec 7: rethrown unchanged, the application's own object.
    expect(await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)).toBe(failure)
    const logged = JSON.stringify(logger.lines)
    expect(logged).toContain('vault said [redacted] / [redacted] / [redacted]')
    for (const secret of [clientSecret, applicationToken, current.refreshToken, current.accessToken]) {
      expect(logged).not.toContain(secret)
    }
    expect(logger.lines.some((line) => line.message === 'token refresh failed')).toBe(true)
  })

  it('a refresh callback that throws an error quoting the new refresh token: refreshAuth() gets it unchanged, the log a redacted view', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    let failure: Error | undefined
    rig.portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
      failure = new Error(`cannot store ${b24OAuthParams.refreshToken}`)
      throw failure
    })
    expect(await rig.portal.auth.refreshAuth().catch((thrown: unknown) => thrown)).toBe(failure)
    const { refreshToken } = rig.portal.auth.getParams()
    expect(JSON.stringify(logger.lines)).toContain('cannot store [redacted]')
    expect(JSON.stringify(logger.lines)).not.toContain(refreshToken)
  })
})

describe('faults the OAuth server throws at a refresh', () => {
  it('a rotated answer with odd fields (unknown status, expires not a number, bad endpoint) is applied, persisted and restorable', async () => {
    const logger = createMemoryLogger()
    rig = await startRig({ client: { logger } })
    const persisted: PortalOAuthParams[] = []
    rig.portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
      persisted.push(b24OAuthParams)
    })
    rig.emulator.mutateTokenResponses({ set: { status: 'X', expires: 'soon', client_endpoint: 'not a url' } })
    rig.emulator.expireAccessTokens()
    const results = await Promise.all(calls(rig, 6))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(persisted).toHaveLength(1)
    expect(persisted[0]?.refreshToken).toBe(rig.emulator.currentRefreshToken)
    expect(persisted[0]?.status).toBe('X')
    expect(
      logger.lines.filter((line) => line.level === 'warn' && line.message.includes('odd fields')),
    ).toHaveLength(1)
    expect(logger.lines.some((line) => line.message.includes('INVALID_ARGUMENT'))).toBe(false)
    const restarted = restore(rig, persisted[0]!)
    try {
      await restarted.auth.refreshAuth()
      expect(rig.emulator.log.rejected('invalid_grant')).toHaveLength(0)
    } finally {
      await restarted.destroy()
    }
  })

  it('a 500 with an HTML body that rotated nothing is retried: every call succeeds', async () => {
    rig = await startRig()
    rig.emulator.failTokenRequests({ status: 500 })
    rig.emulator.expireAccessTokens()
    const results = await Promise.all(calls(rig, 10))
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.tokenRequests()).toHaveLength(2)
  })

  it('a 503 after the server rotated the pair: the pair is dead, learnt with one more request, no storm', async () => {
    rig = await startRig()
    rig.emulator.failTokenRequests({ status: 503, processed: true })
    rig.emulator.expireAccessTokens()
    const outcomes = await Promise.allSettled(calls(rig, 10))
    const errors = outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason)
    expect(errors[0]).toBeInstanceOf(RefreshTokenError)
    for (const error of errors) expect(error).toBe(errors[0])
    expect(rig.emulator.log.tokenRequests()).toHaveLength(2)
    expect(rig.portal.tokenState).toBe('dead')
  })

  it('destroy() while the OAuth server holds the refresh: the answer is committed and persisted, then the client closes', async () => {
    rig = await startRig()
    const persisted: PortalOAuthParams[] = []
    rig.portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
      persisted.push(b24OAuthParams)
    })
    rig.emulator.holdRequests(1, { server: 'oauth' })
    rig.emulator.expireAccessTokens()
    const pending = Promise.allSettled(calls(rig, 4))
    await rig.emulator.waitForHeld()
    const closed = rig.portal.destroy()
    for (const outcome of await pending) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: SdkErrorCode.Destroyed })
    }
    rig.emulator.releaseHeldRequests()
    await closed
    expect(persisted.map((pair) => pair.refreshToken)).toEqual([rig.emulator.currentRefreshToken])
  })
})

describe('a logger that throws', () => {
  it('fails no call and leaks no secret: one process warning, redacted', async () => {
    const captured = captureProcessWarnings()
    try {
      const throwing = (): never => {
        throw new Error(`sink refused line with ${rig.portal.auth.getParams().refreshToken}`)
      }
      rig = await startRig({
        client: { logger: { debug: throwing, info: throwing, warn: throwing, error: throwing } },
      })
      rig.emulator.expireAccessTokens()
      rig.emulator.failOAuth({ error: 'server_error', status: 500 })
      const results = await Promise.all(calls(rig, 6))
      expect(results.every((result) => result.isSuccess)).toBe(true)
      await new Promise((resolve) => setImmediate(resolve))
      const mine = captured.warnings
        .map((warning) => warning.message)
        .filter((text) => text.includes('the logger threw'))
      expect(mine).toHaveLength(1)
      expect(mine[0]).toContain('[redacted]')
      for (const secret of [
        rig.emulator.clientSecret,
        ...rig.emulator.log.entries.map((entry) => entry.token ?? ''),
      ]) {
        if (secret) expect(mine[0]).not.toContain(secret)
      }
    } finally {
      captured.stop()
    }
  })
})
