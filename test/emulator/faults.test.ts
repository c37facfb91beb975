import { describe, expect, it } from 'vitest'
import { startPortalEmulator, startPortalEmulatorProcess } from '../../src/testing/index.js'
import { emulator, refresh, request, v2 } from './helpers.js'

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

describe('forced faults', () => {
  it('drops connections after the body by default, then answers again', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    emu.dropConnections(1)
    const error = await failure(v2(emu, 'profile', token))
    expect(error).toBeInstanceOf(TypeError)
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    const [dropped, answered] = emu.log.entries
    expect(dropped).toMatchObject({ dropped: true, status: 0, restMethod: 'profile' })
    expect(dropped?.rawBody).toContain(token)
    expect(answered?.status).toBe(200)
  })

  it('drops by server and method, after the headers when asked', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    emu.dropConnections(1, { server: 'oauth', after: 'headers' })
    emu.dropConnections(1, { method: 'crm.item.get' })
    expect((await v2(emu, 'profile', pair.accessToken)).status).toBe(200)
    await failure(refresh(emu, pair.refreshToken))
    // dropped before the body: the refresh token was not consumed
    expect((await refresh(emu, pair.refreshToken)).status).toBe(200)
    await failure(v2(emu, 'crm.item.get', String(emu.currentAccessToken), { entityTypeId: 2, id: 1 }))
    expect(
      (await v2(emu, 'crm.item.get', String(emu.currentAccessToken), { entityTypeId: 2, id: 1 })).status,
    ).toBe(200)
    expect(emu.log.entries.filter((entry) => entry.dropped).map((entry) => entry.server)).toEqual([
      'oauth',
      'portal',
    ])
  })

  it('drops after processing with after: response (the refresh happened, its answer is lost)', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    emu.dropConnections(1, { server: 'oauth', after: 'response' })
    await failure(refresh(emu, pair.refreshToken))
    expect(emu.log.entries[0]).toMatchObject({ dropped: true, status: 200, grantType: 'refresh_token' })
    const retry = await refresh(emu, pair.refreshToken)
    expect(retry.status).toBe(400)
    expect(retry.body.error).toBe('invalid_grant')
    expect(emu.currentRefreshToken).toBeDefined()
  })

  it('delays matching requests so a client timeout fires', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    emu.delayRequests(1_000, 1, { method: 'profile' })
    const error = await failure(
      request(`${emu.clientEndpoint}profile?auth=${token}`, { signal: AbortSignal.timeout(100) }),
    )
    expect((error as Error).name).toBe('TimeoutError')
    expect((await v2(emu, 'server.time', token)).status).toBe(200)
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    // Only one request was delayed: the next ones were answered while it was still held (an order, no time bound).
    expect(emu.log.entries[0]).toMatchObject({ restMethod: 'profile', status: 0, clientClosed: true })
    expect(emu.log.entries.slice(1).map((entry) => entry.status)).toEqual([200, 200])
  })

  it('adds latency to every answer of both servers', async () => {
    const emu = await emulator({ latencyMs: 60 })
    const pair = emu.issueAuthParams()
    let started = performance.now()
    await v2(emu, 'profile', pair.accessToken)
    expect(performance.now() - started).toBeGreaterThanOrEqual(55)
    started = performance.now()
    await refresh(emu, pair.refreshToken)
    expect(performance.now() - started).toBeGreaterThanOrEqual(55)
    // setLatency(0): a call that arrives after it is answered before one still waiting out the latency (an order,
    // no time bound).
    const order: string[] = []
    const index = emu.log.entries.length
    // Held long enough that the second call, made once the first is being held, is answered first on a loaded
    // machine too.
    emu.setLatency(1_000)
    const held = v2(emu, 'profile', String(emu.currentAccessToken)).then(() => order.push('held'))
    // Its body has been read once the log shows it, and its latency was taken right then.
    while (!emu.log.entries[index]?.rawBody) await new Promise((resolve) => setTimeout(resolve, 1))
    emu.setLatency(0)
    const quick = v2(emu, 'profile', String(emu.currentAccessToken)).then(() => order.push('quick'))
    await Promise.all([held, quick])
    expect(order).toEqual(['quick', 'held'])
  })

  it('closes promptly with requests pending and leaves no servers or sockets behind', async () => {
    const handles = (): number =>
      process.getActiveResourcesInfo().filter((name) => name === 'TCPServerWrap' || name === 'TCPSocketWrap')
        .length
    const before = handles()
    const emu = await startPortalEmulator()
    const { accessToken: token } = emu.issueAuthParams()
    emu.delayRequests(60_000, 1)
    const pending = failure(v2(emu, 'profile', token))
    await new Promise((resolve) => setTimeout(resolve, 50))
    // The request is held for longer than the test may run: close() must not wait for it.
    await emu.close()
    await pending
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(handles()).toBeLessThanOrEqual(before)
    await emu.close()
  })
})

describe('refresh faults: held requests, mutated and failing token answers', () => {
  it('holds a request before processing it until released; the pair rotates only then', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    emu.holdRequests(1, { server: 'oauth' })
    const answer = refresh(emu, pair.refreshToken)
    await emu.waitForHeld(1)
    // Held before processing: the refresh token is still the current one.
    expect(emu.currentRefreshToken).toBe(pair.refreshToken)
    emu.releaseHeldRequests()
    expect((await answer).status).toBe(200)
    expect(emu.currentRefreshToken).not.toBe(pair.refreshToken)
  })

  it('patches successful token answers: keys set and removed, the rotation as usual', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    emu.mutateTokenResponses({ set: { status: 'X', expires: 'soon' }, remove: ['expires_in'] })
    const odd = await refresh(emu, pair.refreshToken)
    expect(odd.status).toBe(200)
    expect(odd.body).toMatchObject({ status: 'X', expires: 'soon', refresh_token: emu.currentRefreshToken })
    expect(odd.body).not.toHaveProperty('expires_in')
    const normal = await refresh(emu, String(emu.currentRefreshToken))
    expect(normal.body).toMatchObject({ status: 'L', expires_in: 3600 })
  })

  it('fails token requests with a raw 5xx, processed (rotated, answer lost) or not', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    emu.failTokenRequests({ status: 500 })
    const page = await refresh(emu, pair.refreshToken)
    expect(page.status).toBe(500)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.text).toContain('Internal Server Error')
    expect(emu.currentRefreshToken).toBe(pair.refreshToken)
    emu.failTokenRequests({ status: 503, body: 'busy', contentType: 'text/plain', processed: true })
    const busy = await refresh(emu, pair.refreshToken)
    expect(busy).toMatchObject({ status: 503, text: 'busy' })
    expect(emu.currentRefreshToken).not.toBe(pair.refreshToken)
    expect((await refresh(emu, pair.refreshToken)).body).toMatchObject({ error: 'invalid_grant' })
  })

  it('offers the same controls on the emulator in a child process', async () => {
    const emu = await startPortalEmulatorProcess()
    try {
      const pair = await emu.issueAuthParams()
      await emu.failTokenRequests({ status: 500 })
      expect((await refresh(emu, pair.refreshToken)).status).toBe(500)
      await emu.mutateTokenResponses({ set: { status: 'Z' } })
      await emu.holdRequests(1, { server: 'oauth' })
      const answer = refresh(emu, pair.refreshToken)
      await emu.waitForHeld(1)
      await emu.releaseHeldRequests()
      expect((await answer).body).toMatchObject({ status: 'Z' })
    } finally {
      await emu.close()
    }
  })
})
