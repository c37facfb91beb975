/**
 * Compile-time checks (`npm run typecheck`, `vitest --typecheck`; strict, `noUncheckedIndexedAccess`) that an id
 * read from a documented result goes into the next call as it is: the wrappers (`{ item }`, `{ items }`) and an
 * object's own id are required in the result types, so none of these calls needs `!` or a cast.
 * test/emulator/answers.test.ts runs the same chains against the emulator.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { PortalOAuth } from '../../src/index.js'

declare const portal: PortalOAuth
const { v2, v3 } = portal.actions

describe('ids from one result into the next call', () => {
  it('crm.item.list → crm.item.get → crm.item.update', async () => {
    const listed = await v2.call.make({ method: 'crm.item.list', params: { entityTypeId: 2 } })
    const first = listed.getData()?.result.items[0]
    if (first === undefined) return
    expectTypeOf(first.id).toEqualTypeOf<number>()
    const got = await v2.call.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: first.id } })
    const item = got.getData()?.result.item
    if (item === undefined) return
    expectTypeOf(item.id).toEqualTypeOf<number>()
    const updated = await v2.call.make({
      method: 'crm.item.update',
      params: { entityTypeId: 2, id: item.id, fields: { title: 'Renamed' } },
    })
    expectTypeOf(updated.getData()?.result.item.id).toEqualTypeOf<number | undefined>()
    // Other fields stay optional: what a row holds follows `select`.
    expectTypeOf(item.title).toEqualTypeOf<string | undefined>()
  })

  it('crm.item.add → crm.item.get, in a batch too', async () => {
    const added = await v2.call.make({ method: 'crm.item.add', params: { entityTypeId: 2, fields: {} } })
    const id = added.getData()?.result.item.id
    if (id === undefined) return
    void v2.call.make({ method: 'crm.item.get', params: { entityTypeId: 2, id } })
    const batch = await v2.batch.make({
      calls: { added: ['crm.item.add', { entityTypeId: 2, fields: { title: 'Deal' } }] },
    })
    expectTypeOf(batch.getData()?.added?.item.id).toEqualTypeOf<number | undefined>()
  })

  it('v2 ids written as strings ("ID": "410") go back as they are', async () => {
    const deals = await v2.call.make({ method: 'crm.deal.list', params: {} })
    const deal = deals.getData()?.result[0]
    if (deal === undefined) return
    expectTypeOf(deal.ID).toEqualTypeOf<`${number}`>()
    void v2.call.make({ method: 'crm.deal.get', params: { id: deal.ID } })
    const me = (await v2.call.make({ method: 'user.current' })).getData()?.result
    if (me === undefined) return
    void v2.call.make({ method: 'user.get', params: { ID: me.ID } })
    const storages = (await v2.call.make({ method: 'disk.storage.getList' })).getData()?.result
    const storage = storages?.[0]
    if (storage === undefined) return
    void v2.call.make({ method: 'disk.storage.get', params: { id: storage.ID } })
  })

  it('v3 tasks.task.list → tasks.task.get', async () => {
    const tasks = await v3.call.make({ method: 'tasks.task.list', params: { select: ['title'] } })
    const task = tasks.getData()?.result.items[0]
    if (task === undefined) return
    expectTypeOf(task.id).toEqualTypeOf<number>()
    const got = await v3.call.make({ method: 'tasks.task.get', params: { id: task.id } })
    expectTypeOf(got.getData()?.result.item.id).toEqualTypeOf<number | undefined>()
  })
})
