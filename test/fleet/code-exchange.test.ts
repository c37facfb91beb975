import { afterEach, describe, expect, it } from 'vitest'
import { exchangeAuthorizationCode, SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createTestClock } from '../helpers.js'
import { createFleetRig } from './fleet-rig.js'

const rig = createFleetRig()
afterEach(() => rig.close())

function exchange(portal: PortalEmulator, code: string, clientSecret = portal.clientSecret) {
  return exchangeAuthorizationCode({
    code,
    oAuthSecret: { clientId: portal.clientId, clientSecret },
    applicationToken: portal.applicationToken,
    serverEndpoint: portal.serverEndpoint,
  })
}

describe('exchangeAuthorizationCode', () => {
  it('POSTs grant_type=authorization_code as a form body, nothing in the URL, and resolves to a working pair', async () => {
    const portal = await rig.portal()
    const params = await exchange(portal, portal.issueAuthorizationCode())
    expect(params).toMatchObject({
      applicationToken: portal.applicationToken,
      memberId: portal.memberId,
      userId: 1,
      domain: new URL(portal.portalOrigin).host,
      clientEndpoint: portal.clientEndpoint,
      serverEndpoint: portal.serverEndpoint,
      status: 'L',
    })
    expect(params.refreshToken).toBe(portal.currentRefreshToken)
    const [request] = portal.log.tokenRequests()
    expect(request).toMatchObject({
      httpMethod: 'POST',
      grantType: 'authorization_code',
      query: {},
      status: 200,
    })
    expect(request?.contentType).toContain('application/x-www-form-urlencoded')
    expect(request?.body).toMatchObject({ client_id: portal.clientId, client_secret: portal.clientSecret })
  })

  it('asks for JSON (accept: application/json)', async () => {
    const portal = await rig.portal()
    await exchange(portal, portal.issueAuthorizationCode())
    expect(portal.log.tokenRequests()[0]?.headers.accept).toBe('application/json')
  })

  it('hands the pair to a fleet, whose client calls the portal with it; the install event then matches', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const params = await exchangeAuthorizationCode({
      code: portal.issueAuthorizationCode(),
      oAuthSecret: { clientId: portal.clientId, clientSecret: portal.clientSecret },
      applicationToken: portal.applicationToken,
      serverEndpoint: portal.serverEndpoint,
      fleet,
    })
    expect(await fleet.store.load(portal.memberId)).toEqual(params)
    const client = await fleet.get(portal.memberId)
    expect((await client.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    expect(portal.log.restRequests().filter((entry) => entry.restMethod === 'app.info')).toHaveLength(0)
  })

  it('a code works once: the second exchange is refused with invalid_grant', async () => {
    const portal = await rig.portal()
    const code = portal.issueAuthorizationCode()
    await exchange(portal, code)
    await expect(exchange(portal, code)).rejects.toMatchObject({ code: 'invalid_grant', status: 400 })
    await expect(exchange(portal, 'not-a-code')).rejects.toMatchObject({ code: 'invalid_grant' })
  })

  it('a code lives 30 s', async () => {
    const clock = createTestClock()
    const portal = await rig.portal({ now: clock.now })
    const code = portal.issueAuthorizationCode()
    clock.advance(30_001)
    await expect(exchange(portal, code)).rejects.toMatchObject({ code: 'expired_token', status: 400 })
  })

  it('a wrong client secret is refused and never echoed', async () => {
    const portal = await rig.portal()
    const error = await exchange(portal, portal.issueAuthorizationCode(), 'wrong-secret-value').catch(
      (failure: unknown) => failure,
    )
    expect(error).toMatchObject({ code: 'invalid_client' })
    expect(JSON.stringify(error)).not.toContain('wrong-secret-value')
    expect(String(error)).not.toContain('wrong-secret-value')
  })

  it('validates its arguments', async () => {
    const portal = await rig.portal()
    const oAuthSecret = { clientId: portal.clientId, clientSecret: portal.clientSecret }
    const invalid = [
      { oAuthSecret, applicationToken: 'x'.repeat(32) },
      { code: 'c', oAuthSecret, applicationToken: '' },
      { code: 'c', oAuthSecret: {}, applicationToken: 'x'.repeat(32) },
      { code: 'c', oAuthSecret, applicationToken: 'x'.repeat(32), serverEndpoint: 'https://oauth.example/' },
    ]
    for (const request of invalid) {
      await expect(exchangeAuthorizationCode(request as never)).rejects.toMatchObject({
        code: SdkErrorCode.InvalidArgument,
      })
    }
    expect(portal.log.tokenRequests()).toHaveLength(0)
  })
})
