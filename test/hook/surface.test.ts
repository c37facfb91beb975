import { afterEach, describe, expect, it } from 'vitest'
import { ActionErrorCode, PortalHook } from '../../src/index.js'
import { EmulatorRestError } from '../../src/testing/index.js'
import { type HookRig, startHookRig } from '../actions/fast-rig.js'

let rig: HookRig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

function restPaths(rig: HookRig): string[] {
  return rig.emulator.log.restRequests().map((entry) => entry.path)
}

describe('PortalHook: the REST surface through a webhook URL', () => {
  it('call.make goes to {portal}/rest/{userId}/{secret}/{method} (v3: /rest/api/...), no token anywhere', async () => {
    rig = await startHookRig()
    const v2 = await rig.hook.actions.v2.call.make<{ ID: string }>({ method: 'user.current' })
    expect(v2.getData()?.result.ID).toBe('1')
    const v3 = await rig.hook.actions.v3.call.make<{ item: { id: number } }>({
      unchecked: true,
      method: 'tasks.task.add',
      params: { fields: { title: 'From a webhook', creatorId: 1, responsibleId: 1 } },
    })
    expect(v3.isSuccess).toBe(true)
    expect(restPaths(rig)).toEqual([
      `/rest/1/${rig.secret}/user.current`,
      `/rest/api/1/${rig.secret}/tasks.task.add`,
    ])
    for (const entry of rig.emulator.log.restRequests()) {
      expect(entry.authVia).toBe('webhook')
      expect(entry.kind).toBe('webhook')
      expect(entry.query).toEqual({})
      expect(entry.token).toBeUndefined()
      expect(Object.keys(entry.body as object)).not.toContain('auth')
    }
    expect(rig.emulator.log.restRequests()[1]?.body).toEqual({
      fields: { title: 'From a webhook', creatorId: 1, responsibleId: 1 },
    })
  })

  it('a 401 expired_token through a webhook is the answer: there is no token to renew, nothing is sent again', async () => {
    rig = await startHookRig()
    rig.emulator.defineMethod('app.expired', () => {
      throw new EmulatorRestError('expired_token', 'The access token provided has expired.', 401)
    })
    const result = await rig.hook.actions.v2.call.make({ unchecked: true, method: 'app.expired' })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]).toMatchObject({ code: 'expired_token', status: 401 })
    expect(restPaths(rig)).toEqual([`/rest/1/${rig.secret}/app.expired`])
    expect(rig.emulator.log.tokenRequests()).toHaveLength(0)
  })

  it('v2 callList / fetchList page by the keyset through the webhook', async () => {
    rig = await startHookRig({ lists: { 'crm.contact.list': 120, 'crm.item.list': 60 } })
    const contacts = await rig.hook.actions.v2.callList.make<{ ID: string }>({ method: 'crm.contact.list' })
    expect(contacts.getData()).toHaveLength(120)
    const bodies = rig.emulator.log.restRequests().map((entry) => entry.body)
    expect(bodies).toEqual([
      { order: { ID: 'ASC' }, start: -1 },
      { order: { ID: 'ASC' }, filter: { '>ID': '50' }, start: -1 },
      { order: { ID: 'ASC' }, filter: { '>ID': '100' }, start: -1 },
    ])
    rig.emulator.log.clear()
    const pages: number[] = []
    for await (const page of rig.hook.actions.v2.fetchList.make({
      method: 'crm.item.list',
      params: { entityTypeId: 2 },
      idKey: 'id',
      customKeyForResult: 'items',
      unchecked: true,
    })) {
      pages.push(page.length)
      break
    }
    expect(pages).toEqual([50])
    expect(restPaths(rig)).toEqual([`/rest/1/${rig.secret}/crm.item.list`])
  })

  it('v3 callList, callTail and fetchTail through the webhook', async () => {
    rig = await startHookRig({ lists: { 'tasks.task.list': 70, 'main.eventlog.tail': 70 } })
    const tasks = await rig.hook.actions.v3.callList.make<{ id: number }>({ method: 'tasks.task.list' })
    expect(tasks.getData()).toHaveLength(70)
    const events = await rig.hook.actions.v3.callTail.make<{ id: number }>({ method: 'main.eventlog.tail' })
    expect(events.getData()?.at(-1)?.id).toBe(70)
    let rows = 0
    for await (const page of rig.hook.actions.v3.fetchTail.make({
      method: 'main.eventlog.tail',
      cursor: { limit: 30 },
    })) {
      rows += page.length
    }
    expect(rows).toBe(70)
    expect(restPaths(rig)).toEqual([
      ...Array(2).fill(`/rest/api/1/${rig.secret}/tasks.task.list`),
      ...Array(5).fill(`/rest/api/1/${rig.secret}/main.eventlog.tail`),
    ])
  })

  it('v2 batch with a failing command under both halt settings', async () => {
    rig = await startHookRig()
    const calls = [['user.current'], ['no.such.method'], ['server.time']] as const
    const halted = await rig.hook.actions.v2.batch.make({
      calls: [...calls],
      options: { returnAjaxResult: true },
      unchecked: true,
    })
    expect(halted.getData()?.map((entry) => entry.isSuccess)).toEqual([true, false, false])
    expect(halted.getData()?.[2]?.hasError(ActionErrorCode.BatchCommandNotRun)).toBe(true)
    const going = await rig.hook.actions.v2.batch.make({
      calls: [...calls],
      options: { isHaltOnError: false },
      unchecked: true,
    })
    expect(going.getData()?.map((value) => value !== undefined)).toEqual([true, false, true])
    expect(restPaths(rig)).toEqual(Array(2).fill(`/rest/1/${rig.secret}/batch`))
    expect(rig.emulator.log.restRequests().map((entry) => (entry.body as { halt: number }).halt)).toEqual([
      1, 0,
    ])
  })

  it('v3 batch: the object form without auth, and batchByChunk of 120 commands in 3 requests', async () => {
    rig = await startHookRig({ lists: { 'tasks.task.list': 150 } })
    const one = await rig.hook.actions.v3.batch.make({ calls: { first: ['tasks.task.get', { id: 1 }] } })
    expect(one.getData()?.first).toMatchObject({ item: { id: 1 } })
    expect(rig.emulator.log.restRequests()[0]?.body).toEqual({
      '0': { method: 'tasks.task.get', query: { id: 1 }, as: 'first' },
    })
    rig.emulator.log.clear()
    const calls = Array.from(
      { length: 120 },
      (_, index) => ['crm.item.get', { entityTypeId: 2, id: index + 1 }] as const,
    )
    const result = await rig.hook.actions.v2.batchByChunk.make<{ item: { id: number } }>({
      calls,
      unchecked: true,
    })
    expect(result.getData()?.map((entry) => entry?.item.id)).toEqual(
      Array.from({ length: 120 }, (_, i) => i + 1),
    )
    expect(restPaths(rig)).toEqual(Array(3).fill(`/rest/1/${rig.secret}/batch`))
  })

  it('tools: ping and healthCheck; a wrong secret is a false health check, not a throw', async () => {
    rig = await startHookRig()
    expect(await rig.hook.tools.ping.make()).toBeGreaterThanOrEqual(0)
    expect(await rig.hook.tools.healthCheck.make()).toBe(true)
    const wrong = new PortalHook({ b24Url: rig.emulator.portalOrigin, userId: 1, secret: 'not0the0secret' })
    expect(await wrong.tools.healthCheck.make()).toBe(false)
    await expect(wrong.tools.ping.make()).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS', status: 401 })
    await wrong.destroy()
  })

  it("v2 and v3 share the instance's limiter: a request beyond the bucket waits and is never sent", async () => {
    rig = await startHookRig({}, { restrictionParams: { rateLimit: { burstLimit: 3, drainRate: 0.01 } } })
    await rig.hook.actions.v2.call.make({ method: 'server.time' })
    await rig.hook.actions.v3.call.make({ method: 'tasks.task.list' })
    await rig.hook.actions.v2.call.make({ method: 'user.current' })
    const waiting = rig.hook.actions.v3.call.make({
      method: 'tasks.task.list',
      signal: AbortSignal.timeout(150),
    })
    await expect(waiting).rejects.toMatchObject({ code: 'REQUEST_ABORTED' })
    expect(rig.emulator.log.restRequests()).toHaveLength(3)
  })

  it('destroy: later calls reject', async () => {
    rig = await startHookRig()
    await rig.hook.destroy()
    await expect(rig.hook.actions.v2.call.make({ method: 'server.time' })).rejects.toMatchObject({
      code: 'JSSDK_CLIENT_DESTROYED',
    })
    await expect(rig.hook.actions.v2.callList.make({ method: 'crm.contact.list' })).rejects.toThrow(
      /PortalHook was destroyed/,
    )
  })
})
