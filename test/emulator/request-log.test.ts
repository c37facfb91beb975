import { describe, expect, it } from 'vitest'
import { emulator, refresh, request, v2 } from './helpers.js'

describe('request log', () => {
  it('sorts requests into token, REST and rejected entries', async () => {
    const emu = await emulator()
    const pair = emu.issueAuthParams()
    await v2(emu, 'profile', pair.accessToken)
    await refresh(emu, pair.refreshToken)
    await request(`${emu.portalOrigin}/favicon.ico`)
    await v2(emu, 'batch', String(emu.currentAccessToken), { cmd: ['profile'] })
    expect(emu.log.entries.map((entry) => entry.kind)).toEqual(['rest', 'token', 'other', 'batch'])
    expect(emu.log.tokenRequests()).toHaveLength(1)
    expect(emu.log.refreshRequests()).toHaveLength(1)
    expect(emu.log.restRequests().map((entry) => entry.restMethod)).toEqual(['profile', 'batch'])
    expect(emu.log.rejected().map((entry) => entry.status)).toEqual([404])
    const [first] = emu.log.entries
    expect(first).toMatchObject({
      seq: 1,
      server: 'portal',
      httpMethod: 'POST',
      path: '/rest/profile',
      contentType: 'application/json',
      body: { auth: pair.accessToken },
      authVia: 'body',
      token: pair.accessToken,
      status: 200,
    })
    expect(first?.headers['content-type']).toBe('application/json')
  })

  it('keeps only the newest entries with logLimit', async () => {
    const emu = await emulator({ logLimit: 2 })
    const { accessToken: token } = emu.issueAuthParams()
    for (let i = 0; i < 4; i++) await v2(emu, 'server.time', token)
    expect(emu.log.entries.map((entry) => entry.seq)).toEqual([3, 4])
    emu.log.clear()
    await v2(emu, 'server.time', token)
    expect(emu.log.entries.map((entry) => entry.seq)).toEqual([5])
  })
})
