import { describe, expect, it } from 'vitest'
import { startPortalEmulatorProcess } from '../../src/testing/index.js'
import { refresh, v2 } from './helpers.js'

describe('emulator in a child process', () => {
  it('serves requests from another process and proxies the controls', async () => {
    const emu = await startPortalEmulatorProcess({
      rateLimit: { burstLimit: 3, drainRate: 0.001 },
      userId: 5,
    })
    try {
      expect(emu.pid).not.toBe(process.pid)
      expect(emu.clientEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/rest\/$/)
      const pair = await emu.issueAuthParams()
      expect(pair.userId).toBe(5)
      expect((await v2(emu, 'profile', pair.accessToken)).status).toBe(200)
      await emu.expireAccessTokens()
      expect((await v2(emu, 'profile', pair.accessToken)).body.error).toBe('expired_token')
      await emu.failOAuth({ error: 'invalid_grant' })
      expect((await refresh(emu, pair.refreshToken)).status).toBe(400)
      const renewed = await refresh(emu, pair.refreshToken)
      expect(renewed.status).toBe(200)
      expect((await emu.currentTokens()).refreshToken).toBe(renewed.body.refresh_token)
      const token = String(renewed.body.access_token)
      expect((await v2(emu, 'profile', token)).status).toBe(200)
      expect((await v2(emu, 'profile', token)).status).toBe(200)
      expect((await v2(emu, 'profile', token)).status).toBe(503)
      await emu.setRateLimit(false)
      expect((await v2(emu, 'profile', token)).status).toBe(200)
      const log = await emu.getLog()
      expect(log.map((entry) => entry.status)).toEqual([200, 401, 400, 200, 200, 200, 503, 200])
      await emu.clearLog()
      expect(await emu.getLog()).toEqual([])
    } finally {
      await emu.close()
    }
    await expect(emu.getLog()).rejects.toThrow()
  })

  it('refuses a clock function', async () => {
    const options = { now: () => 0 } as unknown as Parameters<typeof startPortalEmulatorProcess>[0]
    await expect(startPortalEmulatorProcess(options)).rejects.toThrow(TypeError)
  })
})
