import { afterEach, describe, expect, it } from 'vitest'
import { type Rig, startRig } from '../helpers.js'

// A call whose connection drops after the portal read its body may have been processed: it is sent again only when
// the method only reads. Each name the client knows as a read is checked, with a write of the same shape beside it.

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
