import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

// A call whose connection drops after the portal read its body may have been processed: it is sent again only when
// the method only reads. Each name the client knows as a read is checked, with a write of the same shape beside it.
// The method catalogue's read/write flag decides for the methods it documents, the name rule for any other name.

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

const READS = [
  'crm.deal.get',
  'crm.deal.list',
  'crm.item.tail',
  'crm.deal.fields',
  'tasks.task.count',
  'user.current',
  'app.info',
  'entity.search',
  'server.time',
  'lists.element.getlist',
  'profile',
  'methods',
  'scope',
  'method.get',
  'im.info',
  'crm.timeline.current',
  'calendar.time',
]
const WRITES = ['crm.deal.add', 'crm.deal.update', 'crm.deal.delete', 'app.option.set', 'crm.deal.getter']

async function attemptsAfterOneDrop(method: string): Promise<number> {
  rig.emulator.dropConnections(1, { method: method.toLowerCase(), after: 'body' })
  await rig.portal.actions.v2.call.make({ unchecked: true, method }).catch(() => undefined)
  return rig.emulator.log.restRequests().filter((entry) => entry.restMethod === method.toLowerCase()).length
}

describe('what counts as a read when a connection drops after the body was sent', () => {
  it('every read method is sent again; a write is not', async () => {
    rig = await startRig({ client: { restrictionParams: { retryDelay: 1 } } })
    const attempts: Record<string, number> = {}
    for (const method of [...READS, ...WRITES]) attempts[method] = await attemptsAfterOneDrop(method)
    const expected = Object.fromEntries([
      ...READS.map((method) => [method, 2]),
      ...WRITES.map((method) => [method, 1]),
    ])
    expect(attempts).toEqual(expected)
  })

  it('the read names are matched whatever their case', async () => {
    rig = await startRig({ client: { restrictionParams: { retryDelay: 1 } } })
    expect(await attemptsAfterOneDrop('CRM.Deal.List')).toBe(2)
  })
})

/** Documented reads whose last segment the name rule takes for a write (`getChildren`, `isActionAllowed`, ...). */
const CATALOGUE_READS = [
  'disk.folder.getChildren',
  'crm.type.getByEntityTypeId',
  'task.item.isactionallowed',
  'user.admin',
  'crm.duplicate.findbycomm',
  'timeman.networkrange.check',
]

describe("the method catalogue's read/write flag for the methods it documents", () => {
  it('a documented read the name rule took for a write is sent again; a name the catalogue lacks is not', async () => {
    rig = await startRig({ client: { restrictionParams: { retryDelay: 1 } } })
    const attempts: Record<string, number> = {}
    for (const method of [...CATALOGUE_READS, 'my.app.getchildren', 'Disk.Storage.GetChildren'])
      attempts[method] = await attemptsAfterOneDrop(method)
    expect(attempts).toEqual({
      ...Object.fromEntries(CATALOGUE_READS.map((method) => [method, 2])),
      'my.app.getchildren': 1,
      'Disk.Storage.GetChildren': 2,
    })
  })

  it('a batch is sent again only when every command reads, each by the catalogue', async () => {
    rig = await startRig({ client: { restrictionParams: { retryDelay: 1 } } })
    const batchAttempts = async (calls: [string, Record<string, unknown>?][]): Promise<number> => {
      const before = rig.emulator.log.restRequests().length
      rig.emulator.dropConnections(1, { method: 'batch', after: 'body' })
      await rig.portal.actions.v2.batch.make({ calls, unchecked: true }).catch(() => undefined)
      return rig.emulator.log.restRequests().length - before
    }
    expect(await batchAttempts([['disk.folder.getChildren', { id: 1 }], ['crm.deal.list']])).toBe(2)
    expect(
      await batchAttempts([
        ['disk.folder.getChildren', { id: 1 }],
        ['crm.deal.add', { fields: {} }],
      ]),
    ).toBe(1)
    expect(await batchAttempts([['crm.deal.list'], ['my.app.getchildren']])).toBe(1)
  })
})
