import { afterEach, describe, expect, it } from 'vitest'
import { FAST_CLIENT } from '../actions/fast-rig.js'
import { createMemoryLogger, type LogLine, type Rig, startRig } from '../helpers.js'
import { rigSecrets } from '../url-checks.js'

// A call to a documented method whose scope the pair was not granted logs one warning per instance and scope (the
// method catalogue says which scope), and goes out all the same: the portal decides.

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** A rig whose pair was granted `scope`, its warnings kept. */
async function scopedRig(scope: string): Promise<{ rig: Rig; warnings: () => LogLine[] }> {
  const logger = createMemoryLogger()
  rig = await startRig({
    emulator: { scope, rateLimit: false, lists: { 'crm.contact.list': 3 } },
    client: { logger, restrictionParams: FAST_CLIENT },
  })
  return { rig, warnings: () => logger.lines.filter((line) => line.level === 'warn') }
}

function sentMethods(rig: Rig): string[] {
  return rig.emulator.log.restRequests().map((entry) => entry.restMethod ?? '')
}

describe('a call outside the pair scope', () => {
  it('logs one warning naming the method and the missing scope, without a secret, and still goes out', async () => {
    const { rig, warnings } = await scopedRig('user,task')
    await rig.portal.actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })
    expect(sentMethods(rig)).toEqual(['crm.deal.add'])
    expect(warnings()).toEqual([
      {
        level: 'warn',
        message:
          'PortalOAuth: v2 crm.deal.add needs scope crm (method catalogue), which the pair\'s scope "user,task" does not list; the call is sent and the portal decides (said once per scope)',
        context: { apiVersion: 'v2', method: 'crm.deal.add', scope: 'crm', pairScope: 'user,task' },
      },
    ])
    const logged = JSON.stringify(warnings())
    for (const secret of rigSecrets(rig)) expect(logged).not.toContain(secret)
  })

  it('does not warn again for the same scope, whichever method and case; another missing scope warns once', async () => {
    const { rig, warnings } = await scopedRig('user,task')
    await rig.portal.actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })
    await rig.portal.actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Again' } } })
    await rig.portal.actions.v2.call.make({ method: 'CRM.Contact.List', unchecked: true })
    await rig.portal.actions.v2.call.make({ method: 'im.dialog.get', params: { DIALOG_ID: 'chat1' } })
    await rig.portal.actions.v2.call.make({ method: 'im.dialog.get', params: { DIALOG_ID: 'chat1' } })
    expect(sentMethods(rig)).toEqual([
      'crm.deal.add',
      'crm.deal.add',
      'crm.contact.list',
      'im.dialog.get',
      'im.dialog.get',
    ])
    expect(warnings().map((line) => line.context)).toEqual([
      { apiVersion: 'v2', method: 'crm.deal.add', scope: 'crm', pairScope: 'user,task' },
      { apiVersion: 'v2', method: 'im.dialog.get', scope: 'im', pairScope: 'user,task' },
    ])
  })

  it('names every scope of a method that any of several grants', async () => {
    const { rig, warnings } = await scopedRig('crm')
    await rig.portal.actions.v2.call.make({ method: 'user.current' })
    expect(warnings().map((line) => line.message)).toEqual([
      'PortalOAuth: v2 user.current needs one of the scopes user,user_brief,user_basic (method catalogue), which the pair\'s scope "crm" does not list; the call is sent and the portal decides (said once per scope)',
    ])
  })

  it('warns again once the pair, with another scope, was replaced', async () => {
    const { rig, warnings } = await scopedRig('user,task')
    await rig.portal.actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })
    rig.portal.setAuthOptions({ ...rig.emulator.issueAuthParams(), scope: 'task' })
    await rig.portal.actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })
    expect(warnings().map((line) => line.context?.pairScope)).toEqual(['user,task', 'task'])
  })
})

describe('what is checked', () => {
  it('a method inside the scope, a basic method and an unknown method log nothing, on v2 and v3', async () => {
    const { rig, warnings } = await scopedRig('user,task')
    const { v2, v3 } = rig.portal.actions
    await v2.call.make({ method: 'user.get' })
    await v2.call.make({ method: 'user.current' })
    await v2.call.make({ method: 'tasks.task.add', params: { fields: { TITLE: 'Task' } } })
    // The REST 3.0 pages list these under `tasks`, which the scope `task` grants.
    await v3.call.make({ method: 'tasks.task.get', params: { id: 1 } })
    await v2.call.make({ method: 'tasks.task.field.list', unchecked: true })
    for (const method of ['profile', 'server.time', 'app.info', 'scope', 'method.get'] as const)
      await v2.call.make({ method })
    await v2.call.make({ method: 'my.custom.method', params: { any: 1 }, unchecked: true })
    await v3.call.make({ method: 'my.custom.method', unchecked: true })
    expect(rig.emulator.log.restRequests()).toHaveLength(12)
    expect(warnings()).toEqual([])
  })

  it('every command of a v2 and a v3 batch, and the pages of a list', async () => {
    const { rig, warnings } = await scopedRig('task')
    const { v2, v3 } = rig.portal.actions
    await v2.batch.make({
      calls: [['tasks.task.list'], ['im.dialog.get', { DIALOG_ID: 'chat1' }]],
    })
    await v3.batch.make({
      calls: [
        ['tasks.task.get', { id: 1 }],
        ['crm.item.list', { entityTypeId: 2 }],
      ],
      unchecked: true,
    })
    await v2.callList.make({ method: 'user.get' })
    expect(warnings().map((line) => line.context)).toEqual([
      { apiVersion: 'v2', method: 'im.dialog.get', scope: 'im', pairScope: 'task' },
      { apiVersion: 'v3', method: 'crm.item.list', scope: 'crm', pairScope: 'task' },
      { apiVersion: 'v2', method: 'user.get', scope: 'user,user_brief,user_basic', pairScope: 'task' },
    ])
    const [first, second, ...pages] = sentMethods(rig)
    expect([first, second]).toEqual(['batch', 'batch'])
    // Several pages, one warning.
    expect(pages.length).toBeGreaterThan(1)
    expect(new Set(pages)).toEqual(new Set(['user.get']))
  })

  it('a pair without a scope, or whose scope names the whole application, logs nothing', async () => {
    for (const scope of ['', 'app']) {
      const scoped = await scopedRig(scope)
      const { actions } = scoped.rig.portal
      await actions.v2.call.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })
      await actions.v2.batch.make({ calls: [['im.dialog.get', { DIALOG_ID: 'chat1' }]] })
      expect(sentMethods(scoped.rig)).toEqual(['crm.deal.add', 'batch'])
      expect(scoped.warnings()).toEqual([])
      await scoped.rig.close()
      rig = undefined
    }
  })
})

describe('a method whose page names no scope', () => {
  it('event.bind logs nothing, whatever the pair scope', async () => {
    const { rig, warnings } = await scopedRig('crm')
    await rig.portal.actions.v2.call.make({
      method: 'event.bind',
      params: { event: 'ONCRMDEALADD', handler: 'https://example.com/handler' },
    })
    expect(sentMethods(rig)).toEqual(['event.bind'])
    expect(warnings()).toEqual([])
  })
})
