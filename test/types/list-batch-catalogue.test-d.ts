/**
 * Compile-time checks of `callList`, `fetchList`, `callTail`, `fetchTail`, `batch` and `batchByChunk` against the
 * method catalogue: `npm run typecheck` (and `vitest --typecheck`) fails when a `@ts-expect-error` below stops
 * being an error or an `expectTypeOf` stops holding.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { AjaxResult, PortalOAuth, Result, V2MethodResults } from '../../src/index.js'

declare const portal: PortalOAuth
declare const ids: number[]
const { v2, v3 } = portal.actions

describe('callList and fetchList know the catalogue', () => {
  it('take a documented method with its typed parameters', () => {
    void v2.callList.make({ method: 'crm.contact.list', params: { select: ['ID', 'NAME'] } })
    void v2.callList.make({ method: 'crm.item.list', params: { entityTypeId: 2 }, idKey: 'id' })
    void v2.fetchList.make({ method: 'crm.deal.list', params: { filter: { '>ID': 5 } } })
    void v3.callList.make({ method: 'tasks.task.list', params: { filter: [['status', '=', 2]] } })
    expectTypeOf(v2.callList.make<{ ID: string }>({ method: 'crm.deal.list' })).toEqualTypeOf<
      Promise<Result<{ ID: string }[]>>
    >()
  })

  it('reject a typo, a missing required parameter, an unknown or mistyped parameter', () => {
    // @ts-expect-error 'crm.contact.lst' is no documented method
    void v2.callList.make({ method: 'crm.contact.lst' })
    // @ts-expect-error crm.item.list requires entityTypeId
    void v2.callList.make({ method: 'crm.item.list', params: { filter: {} }, idKey: 'id' })
    // @ts-expect-error crm.deal.list has no parameter 'fliter'
    void v2.fetchList.make({ method: 'crm.deal.list', params: { fliter: {} } })
    // @ts-expect-error select is a list of field names
    void v2.fetchList.make({ method: 'crm.deal.list', params: { select: 'ID' } })
    // @ts-expect-error crm.deal.list is a v2 method
    void v3.fetchList.make({ method: 'crm.deal.list' })
    // @ts-expect-error a typo fails with a row type too
    void v2.callList.make<{ ID: string }>({ method: 'crm.deal.lst' })
  })

  it('type the rows as the docs show them, under customKeyForResult or v3 items; make<T> overrides them', async () => {
    type Deal = V2MethodResults['crm.deal.list'][number]
    expectTypeOf(v2.callList.make({ method: 'crm.deal.list' })).toEqualTypeOf<Promise<Result<Deal[]>>>()
    const items = await v2.callList.make({
      method: 'crm.item.list',
      params: { entityTypeId: 2 },
      idKey: 'id',
      customKeyForResult: 'items',
    })
    expectTypeOf(items.getData()?.[0]?.title).toEqualTypeOf<string | undefined>()
    for await (const page of v3.fetchList.make({ method: 'tasks.task.list' })) {
      expectTypeOf(page[0]?.title).toEqualTypeOf<string | undefined>()
    }
    const events = await v3.callTail.make({ method: 'main.eventlog.tail' })
    expectTypeOf(events.getData()?.[0]?.id).toEqualTypeOf<number | undefined>()
    // Where the rows are is not said (crm.item.list answers { items }): unknown rows.
    expectTypeOf(v2.callList.make({ method: 'crm.item.list', params: { entityTypeId: 2 } })).toEqualTypeOf<
      Promise<Result<unknown[]>>
    >()
    expectTypeOf(v2.callList.make<{ ID: string }>({ method: 'crm.deal.list' })).toEqualTypeOf<
      Promise<Result<{ ID: string }[]>>
    >()
  })

  it('callTail and fetchTail take the documented *.tail methods only', () => {
    void v3.callTail.make({ method: 'main.eventlog.tail', cursor: { field: 'id', value: 0, limit: 50 } })
    void v3.fetchTail.make({ method: 'main.eventlog.tail', params: { select: ['id'] } })
    // @ts-expect-error main.eventlog.list is no *.tail method
    void v3.callTail.make({ method: 'main.eventlog.list' })
  })

  it('take anything with unchecked: true', () => {
    const method: string = 'my.custom.list'
    // @ts-expect-error a string is not a documented method name
    void v2.callList.make({ method })
    void v2.callList.make({ method, params: { any: 1 }, unchecked: true })
    void v2.fetchList.make({ method: 'crm.item.list', idKey: 'id', unchecked: true })
    void v3.fetchTail.make({ method: 'my.custom.tail', unchecked: true })
  })
})

describe('batch and batchByChunk check every command', () => {
  it('take every form the docs show: tuples, named tuples, objects with as, references', () => {
    void v2.batch.make({
      calls: [
        ['user.current'],
        ['user.get', { ID: '$result[0][ID]' }],
        ['crm.contact.list', { filter: { '>ID': 5 }, select: ['ID'] }],
      ],
    })
    void v2.batch.make({
      calls: {
        me: ['user.current'],
        deals: ['crm.deal.list', { filter: { ASSIGNED_BY_ID: '$result[me][ID]' } }],
      },
      options: { isHaltOnError: false, returnAjaxResult: true },
    })
    void v2.batch.make({
      calls: [
        { method: 'crm.contact.add', params: { fields: { NAME: 'Ann' } }, as: 'contact' },
        { method: 'crm.deal.get', params: { id: '$result[contact]' } },
      ],
    })
    void v3.batch.make({
      calls: [
        {
          method: 'tasks.task.add',
          params: { fields: { title: 'Call', creatorId: 1, responsibleId: 1 } },
          as: 'task',
        },
        ['tasks.task.get', { id: { $ref: 'task.item.id' } }],
      ],
    })
    void v2.batchByChunk.make({ calls: ids.map((id) => ['crm.item.get', { entityTypeId: 2, id }] as const) })
    void v2.batchByChunk.make({
      calls: ids.map(
        (id) => ({ method: 'crm.deal.update', params: { id, fields: { TITLE: 'x' } } }) as const,
      ),
    })
  })

  it('reject a typo in any form', () => {
    // @ts-expect-error 'user.currnt' is no documented method
    void v2.batch.make({ calls: [['user.current'], ['user.currnt']] })
    // @ts-expect-error 'crm.deal.lst' is no documented method
    void v2.batch.make({ calls: { deals: ['crm.deal.lst'] } })
    // @ts-expect-error 'crm.contact.ad' is no documented method
    void v2.batch.make({ calls: [{ method: 'crm.contact.ad', params: { fields: { NAME: 'Ann' } } }] })
    // @ts-expect-error 'crm.item.gett' is no documented method
    void v2.batchByChunk.make({ calls: ids.map((id) => ['crm.item.gett', { entityTypeId: 2, id }] as const) })
    // @ts-expect-error crm.deal.list is a v2 method
    void v3.batch.make({ calls: [['crm.deal.list']] })
  })

  it('reject a missing required parameter, an unknown or mistyped parameter', () => {
    // @ts-expect-error crm.item.get requires entityTypeId
    void v2.batch.make({ calls: [['crm.item.get', { id: 1 }]] })
    // @ts-expect-error crm.deal.get requires params
    void v2.batch.make({ calls: [['crm.deal.get']] })
    // @ts-expect-error crm.deal.get requires params (object form)
    void v2.batch.make({ calls: { deal: { method: 'crm.deal.get' } } })
    // @ts-expect-error crm.deal.list has no parameter 'fliter'
    void v2.batch.make({ calls: [['crm.deal.list', { fliter: {} }]] })
    // @ts-expect-error OPENED is a Y/N flag
    void v2.batch.make({ calls: [['crm.deal.add', { fields: { OPENED: 'yes' } }]] })
    // @ts-expect-error tasks.task.add requires creatorId and responsibleId
    void v3.batch.make({ calls: [['tasks.task.add', { fields: { title: 't' } }]] })
    // @ts-expect-error a v3 reference is { $ref }, not a v2 $result string
    void v3.batch.make({ calls: [['tasks.task.get', { id: '$result[0]' }]] })
    const noType = ids.map((id) => ['crm.item.get', { id }] as const)
    // @ts-expect-error crm.item.get requires entityTypeId, whatever the result type
    void v2.batchByChunk.make<{ item: { id: number } }>({ calls: noType })
  })

  it('types the data by the form of the commands and returnAjaxResult, each result as the docs show it', async () => {
    type Me = V2MethodResults['user.current']
    expectTypeOf(v2.batch.make({ calls: [['user.current'], ['server.time']] })).toEqualTypeOf<
      Promise<Result<Array<Me | string | undefined>>>
    >()
    expectTypeOf(
      v2.batch.make({ calls: { me: ['user.current'] }, options: { returnAjaxResult: true } }),
    ).toEqualTypeOf<Promise<Result<{ me: AjaxResult<Me> }>>>()
    const named = await v2.batch.make({
      calls: { me: ['user.current'], added: ['crm.deal.add', { fields: {} }] },
    })
    expectTypeOf(named.getData()).toEqualTypeOf<
      { me: Me | undefined; added: number | undefined } | undefined
    >()
    expectTypeOf(named.getData()?.me?.NAME).toEqualTypeOf<string | undefined>()
    // A method whose page shows no answer: unknown.
    const event = await v2.batch.make({ calls: { e: ['crm.contact.userfield.get', { id: 1 }] } })
    expectTypeOf(event.getData()?.e).toEqualTypeOf<unknown>()
    // A result type given replaces the documented ones.
    expectTypeOf(
      v2.batchByChunk.make<{ item: { id: number } }>({
        calls: ids.map((id) => ['crm.item.get', { entityTypeId: 2, id }] as const),
      }),
    ).toEqualTypeOf<Promise<Result<Array<{ item: { id: number } } | undefined>>>>()
  })

  it('take anything with unchecked: true beside calls', () => {
    const method: string = 'my.custom.method'
    // @ts-expect-error a string is not a documented method name
    void v2.batch.make({ calls: [[method, { any: 1 }]] })
    void v2.batch.make({ calls: [[method, { any: 1 }], ['user.current']], unchecked: true })
    void v3.batchByChunk.make({
      calls: { a: { method: 'my.custom.method', params: { x: 1 } } },
      unchecked: true,
    })
  })
})
