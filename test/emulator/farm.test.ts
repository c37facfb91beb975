import { afterEach, describe, expect, it } from 'vitest'
import { createNullLogger, PortalOAuth } from '../../src/index.js'
import { type PortalEmulatorFarm, startPortalEmulators } from '../../src/testing/index.js'

// Many portals behind two listeners: each behaves as a portal of its own, routed by the member id in the path.

let farm: PortalEmulatorFarm | undefined
const clients: PortalOAuth[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.destroy()))
  await farm?.close()
  farm = undefined
})

function clientOf(emulator: PortalEmulatorFarm['emulators'][number]): PortalOAuth {
  const client = new PortalOAuth(
    emulator.issueAuthParams(),
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { logger: createNullLogger() },
  )
  clients.push(client)
  return client
}

/** POSTs `body` as JSON to `url`; the status and the parsed answer. */
async function post(url: string, body: unknown): Promise<{ status: number; body: { error?: string } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as { error?: string } }
}

describe('startPortalEmulators', () => {
  it('serves every portal on one origin, each with its own member id, log and token chain', async () => {
    farm = await startPortalEmulators(3, { rateLimit: false })
    const [one, two, three] = farm.emulators
    expect(new Set(farm.emulators.map((emulator) => emulator.memberId)).size).toBe(3)
    expect(new Set(farm.emulators.map((emulator) => emulator.clientSecret))).toEqual(
      new Set([one!.clientSecret]),
    )
    for (const emulator of farm.emulators) {
      expect(emulator.clientEndpoint).toBe(`${farm.portalOrigin}/${emulator.memberId}/rest/`)
      expect(emulator.tokenUrl).toBe(`${farm.oauthServer}/${emulator.memberId}/oauth/token/`)
      expect(emulator.oauthServer).toBe(farm.oauthServer)
    }
    const client = clientOf(one!)
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(
      (await client.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })).isSuccess,
    ).toBe(true)
    // The requests reached the first portal only, logged with the paths a lone emulator logs.
    expect(one!.log.entries.map((entry) => entry.path)).toEqual(['/rest/profile', '/rest/api/tasks.task.get'])
    expect(two!.log.entries).toEqual([])
    expect(three!.log.entries).toEqual([])
  })

  it("refuses one portal's token at another, and refreshes each portal at its own OAuth path", async () => {
    farm = await startPortalEmulators(2, { rateLimit: false })
    const [one, two] = farm.emulators
    const token = one!.issueAuthParams().accessToken
    const elsewhere = await post(`${two!.clientEndpoint}profile`, { auth: token })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.body.error).toBe('invalid_token')
    expect((await post(`${one!.clientEndpoint}profile`, { auth: token })).status).toBe(200)

    const client = clientOf(one!)
    one!.expireAccessTokens()
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    expect(one!.log.refreshRequests()).toHaveLength(1)
    expect(two!.log.refreshRequests()).toHaveLength(0)
    expect(client.auth.getParams().refreshToken).toBe(one!.currentRefreshToken)
  })

  it('answers 404 for a path that names no portal of the farm', async () => {
    farm = await startPortalEmulators(1)
    const answer = await post(`${farm.portalOrigin}/no-such-portal/rest/profile`, {})
    expect(answer.status).toBe(404)
    expect(answer.body.error).toBe('NOT_FOUND')
    expect((await post(`${farm.oauthServer}/`, {})).status).toBe(404)
  })

  it('trusts its OAuth server until close(), then refuses connections', async () => {
    farm = await startPortalEmulators(2)
    const { oauthServer, portalOrigin } = farm
    expect(process.env.PORTAL_OAUTH_TRUSTED_SERVERS?.split(',')).toContain(oauthServer)
    await farm.close()
    expect(process.env.PORTAL_OAUTH_TRUSTED_SERVERS?.split(',') ?? []).not.toContain(oauthServer)
    await expect(fetch(`${portalOrigin}/x/rest/profile`)).rejects.toThrow()
  })

  it('refuses a count out of range and the options each portal has its own of', async () => {
    await expect(startPortalEmulators(0)).rejects.toThrow(RangeError)
    await expect(startPortalEmulators(1.5)).rejects.toThrow(
      'count must be an integer from 1 to 100000, got 1.5',
    )
    await expect(startPortalEmulators(2, { memberId: 'x' } as never)).rejects.toThrow(
      'options.memberId cannot be given: each portal of a farm has its own',
    )
    await expect(startPortalEmulators(2, { applicationToken: 'x' } as never)).rejects.toThrow(
      'options.applicationToken cannot be given',
    )
  })
})
