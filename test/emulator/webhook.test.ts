import { describe, expect, it } from 'vitest'
import { emulator, obj, postJson, request, rows } from './helpers.js'

describe('webhooks', () => {
  it('answers v2, v3 and batch calls on the webhook path without OAuth', async () => {
    const emu = await emulator()
    const hook = emu.createWebhook({ userId: 7 })
    expect(hook).toMatch(new RegExp(`^${emu.portalOrigin}/rest/7/[a-z0-9]{16}/$`))
    const profile = await request(`${hook}profile`)
    expect(profile.status).toBe(200)
    expect(obj(profile.body.result).ID).toBe('7')
    const appInfo = await request(`${hook}app.info.json`)
    expect(appInfo.body.result).toEqual({ SCOPE: ['crm', 'user', 'task', 'main'], LICENSE: 'en_ent250' })
    const v3Url = hook.replace('/rest/', '/rest/api/')
    const task = await postJson(`${v3Url}tasks.task.get`, { id: 3 })
    expect(task.body.result).toMatchObject({ item: { id: 3, title: 'Task 3' } })
    const batch = await postJson(`${hook}batch`, { cmd: { me: 'user.current' } })
    expect(obj(obj(obj(batch.body.result).result).me).ID).toBe('7')
    const v3Batch = await postJson(`${v3Url}batch`, [{ method: 'tasks.task.get', query: { id: 1 } }])
    expect(rows(v3Batch.body.result)).toHaveLength(1)
    const entries = emu.log.restRequests()
    expect(entries.map((entry) => entry.kind)).toEqual([
      'webhook',
      'webhook',
      'webhook',
      'webhook',
      'webhook',
    ])
    expect(entries.every((entry) => entry.authVia === 'webhook' && entry.token === undefined)).toBe(true)
    expect(entries.map((entry) => entry.apiVersion)).toEqual(['v2', 'v2', 'v3', 'v2', 'v3'])
  })

  it('answers INVALID_CREDENTIALS for a wrong secret or user, 404 for an unknown method first', async () => {
    const emu = await emulator()
    const hook = emu.createWebhook()
    const secret = hook.split('/').at(-2) ?? ''
    const wrongSecret = await request(`${emu.clientEndpoint}1/${'x'.repeat(16)}/profile`)
    expect(wrongSecret.status).toBe(401)
    expect(wrongSecret.body).toEqual({
      error: 'INVALID_CREDENTIALS',
      error_description: 'Invalid request credentials',
    })
    expect((await request(`${emu.clientEndpoint}2/${secret}/profile`)).status).toBe(401)
    expect((await request(`${emu.clientEndpoint}1/${'x'.repeat(16)}/no.such`)).status).toBe(404)
    expect(emu.log.entries.every((entry) => !JSON.stringify(entry.token ?? '').includes(secret))).toBe(true)
  })
})
