import { describe, expect, it } from 'vitest'
import { emulator, fakeClock, obj, postJson, v2, v3 } from './helpers.js'

describe('leaky bucket', () => {
  it('refuses the request that would exceed burstLimit with 503 and drains drainRate per second', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now, rateLimit: { burstLimit: 5, drainRate: 2 } })
    const { accessToken: token } = emu.issueAuthParams()
    for (let i = 0; i < 5; i++) expect((await v2(emu, 'server.time', token)).status).toBe(200)
    const refused = await v2(emu, 'server.time', token)
    expect(refused.status).toBe(503)
    expect(refused.body).toEqual({ error: 'QUERY_LIMIT_EXCEEDED', error_description: 'Too many requests' })
    // v3 and other methods share the bucket; refused requests are not counted
    expect((await v3(emu, 'tasks.task.get', token, { id: 1 })).status).toBe(503)
    // auth failures are answered before the bucket
    expect((await v2(emu, 'server.time', 'bad')).status).toBe(401)
    clock.advance(500)
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    expect((await v2(emu, 'profile', token)).status).toBe(503)
    clock.advance(1000)
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    expect((await v2(emu, 'profile', token)).status).toBe(503)
    expect(emu.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(4)
    emu.setRateLimit(false)
    for (let i = 0; i < 10; i++) expect((await v2(emu, 'server.time', token)).status).toBe(200)
    emu.setRateLimit({ burstLimit: 1, drainRate: 1 })
    clock.advance(1000)
    expect((await v2(emu, 'server.time', token)).status).toBe(200)
    expect((await v2(emu, 'server.time', token)).status).toBe(503)
  })

  it('setRateLimit keeps the level drained so far at the old rate; the new rate applies from then on', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now, rateLimit: { burstLimit: 5, drainRate: 1 } })
    const { accessToken: token } = emu.issueAuthParams()
    for (let i = 0; i < 5; i++) expect((await v2(emu, 'server.time', token)).status).toBe(200)
    clock.advance(1_000)
    // One slot drained at 1 a second; 100 a second from now on.
    emu.setRateLimit({ burstLimit: 5, drainRate: 100 })
    expect((await v2(emu, 'server.time', token)).status).toBe(200)
    expect((await v2(emu, 'server.time', token)).status).toBe(503)
    clock.advance(10)
    expect((await v2(emu, 'server.time', token)).status).toBe(200)
    expect((await v2(emu, 'server.time', token)).status).toBe(503)
  })

  it('counts a batch as one request', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now, rateLimit: { burstLimit: 2, drainRate: 1 } })
    const { accessToken: token } = emu.issueAuthParams()
    const cmd = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`c${i}`, 'server.time']))
    expect((await v2(emu, 'batch', token, { cmd })).status).toBe(200)
    expect((await v2(emu, 'batch', token, { cmd })).status).toBe(200)
    expect((await v2(emu, 'batch', token, { cmd })).status).toBe(503)
  })
})

describe('operating limit', () => {
  it('blocks a method with 429 once its window sum reaches limitMs, per method, until the bucket expires', async () => {
    const clock = fakeClock()
    const emu = await emulator({
      now: clock.now,
      operatingLimit: { windowMs: 60_000, limitMs: 300 },
      methodCost: { 'crm.contact.list': 100 },
    })
    const { accessToken: token } = emu.issueAuthParams()
    const t0 = clock.now()
    const operating: number[] = []
    for (let i = 0; i < 3; i++) {
      const res = await v2(emu, 'crm.contact.list', token)
      expect(res.status).toBe(200)
      const time = obj(res.body.time)
      operating.push(Number(time.operating))
      expect(time.operating_reset_at).toBe(Math.ceil((t0 + 60_000) / 1000))
      clock.advance(1000)
    }
    // Each call adds its cost (and its real handling time, which no bound here assumes).
    expect(operating[0]).toBeGreaterThanOrEqual(0.1)
    expect(operating[1]! - operating[0]!).toBeGreaterThanOrEqual(0.1)
    expect(operating[2]! - operating[1]!).toBeGreaterThanOrEqual(0.1)
    const blocked = await v2(emu, 'crm.contact.list', token)
    expect(blocked.status).toBe(429)
    expect(blocked.body).toEqual({
      error: 'OPERATION_TIME_LIMIT',
      error_description: 'Method is blocked due to operation time limit.',
    })
    // other methods keep working
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    // inside a batch the blocked method fails alone
    const batch = await v2(emu, 'batch', token, { cmd: { a: 'crm.contact.list', b: 'profile' } })
    expect(obj(obj(batch.body.result).result_error).a).toEqual({
      error: 'OPERATION_TIME_LIMIT',
      error_description: 'Method is blocked due to operation time limit.',
    })
    // v3 gets the flat shape too
    emu.setMethodCost('tasks.task.get', 400)
    expect((await v3(emu, 'tasks.task.get', token, { id: 1 })).status).toBe(200)
    const v3Blocked = await v3(emu, 'tasks.task.get', token, { id: 1 })
    expect(v3Blocked.status).toBe(429)
    expect(v3Blocked.body.error).toBe('OPERATION_TIME_LIMIT')
    // the first bucket expires one window after the first call
    clock.set(t0 + 60_000)
    expect((await v2(emu, 'crm.contact.list', token)).status).toBe(200)
  })

  it('keeps webhooks on their own budget and can be switched off', async () => {
    const clock = fakeClock()
    const emu = await emulator({
      now: clock.now,
      operatingLimit: { windowMs: 60_000, limitMs: 100 },
      methodCost: { profile: 100 },
    })
    const { accessToken: token } = emu.issueAuthParams()
    const hook = emu.createWebhook()
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    expect((await v2(emu, 'profile', token)).status).toBe(429)
    expect((await postJson(`${hook}profile`, {})).status).toBe(200)
    emu.setOperatingLimit(false)
    expect((await v2(emu, 'profile', token)).status).toBe(200)
    emu.setOperatingLimit({ windowMs: 60_000, limitMs: 100 })
    expect((await v2(emu, 'profile', token)).status).toBe(429)
  })

  it('sendsResetAt: false answers with operating alone, and still blocks at the limit', async () => {
    const emu = await emulator({
      operatingLimit: { windowMs: 60_000, limitMs: 100, sendsResetAt: false },
      methodCost: { profile: 100 },
    })
    const { accessToken: token } = emu.issueAuthParams()
    const first = await v2(emu, 'profile', token)
    const time = obj(first.body.time)
    expect(Number(time.operating)).toBeGreaterThanOrEqual(0.1)
    expect(time).not.toHaveProperty('operating_reset_at')
    expect((await v2(emu, 'profile', token)).status).toBe(429)
  })
})
