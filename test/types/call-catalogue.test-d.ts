/**
 * Compile-time checks of `call.make` against the method catalogue: `npm run typecheck` (and `vitest --typecheck`)
 * fails when a `@ts-expect-error` below stops being an error or an `expectTypeOf` stops holding.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type {
  AjaxResult,
  PortalOAuth,
  V2DeprecatedMethod,
  V2Method,
  V2MethodParams,
  V3Method,
} from '../../src/index.js'

declare const portal: PortalOAuth
const v2 = portal.actions.v2.call
const v3 = portal.actions.v3.call

describe('call.make and the catalogue', () => {
  it('knows the documented method names', () => {
    expectTypeOf<'crm.deal.list'>().toExtend<V2Method>()
    expectTypeOf<'profile'>().toExtend<V2Method>()
    expectTypeOf<'tasks.task.get'>().toExtend<V3Method>()
    expectTypeOf<'crm.deal.lst'>().not.toExtend<V2Method>()
    expectTypeOf<'crm.deal.list'>().not.toExtend<V3Method>()
  })

  it('rejects a typo in a method name', () => {
    // @ts-expect-error 'crm.deal.lst' is no documented v2 method
    void v2.make({ method: 'crm.deal.lst' })
    // @ts-expect-error crm.deal.list is a v2 method, not a v3 one
    void v3.make({ method: 'crm.deal.list' })
  })

  it('rejects a missing required parameter and a missing params object', () => {
    void v2.make({ method: 'crm.item.list', params: { entityTypeId: 2 } })
    // @ts-expect-error crm.item.list requires entityTypeId
    void v2.make({ method: 'crm.item.list', params: { filter: {} } })
    // @ts-expect-error crm.deal.get requires params.id
    void v2.make({ method: 'crm.deal.get' })
    void v2.make({ method: 'crm.deal.list' })
  })

  it('types the parameters, nested fields included', () => {
    void v2.make({ method: 'crm.deal.get', params: { id: 1 } })
    // @ts-expect-error id is an integer
    void v2.make({ method: 'crm.deal.get', params: { id: { nested: true } } })
    // @ts-expect-error crm.deal.list has no parameter 'fliter'
    void v2.make({ method: 'crm.deal.list', params: { fliter: {} } })
    // @ts-expect-error profile takes no parameters
    void v2.make({ method: 'profile', params: { select: ['ID'] } })
    // Nested fields are typed (a char flag takes Y or N) and take custom fields too.
    void v2.make({
      method: 'crm.deal.add',
      params: { fields: { TITLE: 'Deal', OPENED: 'Y', UF_CRM_1: 'x' } },
    })
    // @ts-expect-error OPENED is a Y/N flag
    void v2.make({ method: 'crm.deal.add', params: { fields: { OPENED: 'yes' } } })
    // v3: tasks.task.add requires the task's title, creator and responsible person.
    void v3.make({
      method: 'tasks.task.add',
      params: { fields: { title: 't', creatorId: 1, responsibleId: 1 } },
    })
    // @ts-expect-error creatorId and responsibleId are required
    void v3.make({ method: 'tasks.task.add', params: { fields: { title: 't' } } })
    expectTypeOf<V2MethodParams['crm.deal.get']>().toEqualTypeOf<{ id: number | `${number}` }>()
  })

  it('still checks the method when the result type is given', () => {
    interface Deal {
      ID: string
    }
    expectTypeOf(v2.make<Deal>({ method: 'crm.deal.get', params: { id: 1 } })).toEqualTypeOf<
      Promise<AjaxResult<Deal>>
    >()
    // @ts-expect-error crm.deal.get requires params.id, whatever the result type
    void v2.make<Deal>({ method: 'crm.deal.get' })
    // @ts-expect-error a typo fails with a result type too
    void v2.make<Deal>({ method: 'crm.deal.gett', params: { id: 1 } })
  })

  it('checks a deprecated method as any other (its own overload only adds the deprecation)', () => {
    expectTypeOf<'crm.deal.add' | 'task.item.getdata'>().toExtend<V2DeprecatedMethod>()
    expectTypeOf<'crm.item.add'>().not.toExtend<V2DeprecatedMethod>()
    expectTypeOf(v2.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })).toEqualTypeOf<
      Promise<AjaxResult<number>>
    >()
    // @ts-expect-error OPENED is a Y/N flag, in a deprecated method too
    void v2.make({ method: 'crm.deal.add', params: { fields: { OPENED: 'yes' } } })
    // @ts-expect-error crm.deal.update requires id
    void v2.make<{ ID: string }>({ method: 'crm.deal.update', params: { fields: {} } })
  })

  it('types the result as the docs show it, unknown where they show none; make<T> overrides it', async () => {
    const added = await v2.make({ method: 'crm.deal.add', params: { fields: { TITLE: 'Deal' } } })
    expectTypeOf(added.getData()?.result).toEqualTypeOf<number | undefined>()
    const time = await v2.make({ method: 'server.time' })
    expectTypeOf(time.getData()?.result).toEqualTypeOf<string | undefined>()
    const updated = await v2.make({
      method: 'crm.item.update',
      params: { entityTypeId: 2, id: 1, fields: {} },
    })
    expectTypeOf(updated.getData()?.result.item.id).toEqualTypeOf<number | undefined>()
    // Fields of a row are optional (select decides which come), other keys (custom fields) are unknown.
    const deal = (await v2.make({ method: 'crm.deal.get', params: { id: 1 } })).getData()?.result
    expectTypeOf(deal?.TITLE).toEqualTypeOf<string | undefined>()
    expectTypeOf(deal?.UF_CRM_1).toEqualTypeOf<unknown>()
    const task = (await v3.make({ method: 'tasks.task.get', params: { id: 1 } })).getData()?.result
    expectTypeOf(task?.item.title).toEqualTypeOf<string | undefined>()
    // A page that shows no answer: unknown.
    const event = await v2.make({ method: 'crm.contact.userfield.get', params: { id: 1 } })
    expectTypeOf(event.getData()?.result).toEqualTypeOf<unknown>()
    // A result type given replaces the documented one.
    expectTypeOf(v2.make<{ ID: string }>({ method: 'crm.deal.add', params: {} })).toEqualTypeOf<
      Promise<AjaxResult<{ ID: string }>>
    >()
    expectTypeOf(v2.make<string>({ method: 'server.time' })).toEqualTypeOf<Promise<AjaxResult<string>>>()
  })

  it('calls anything with unchecked: true, a name held in a string included', () => {
    const custom: string = 'my.custom.method'
    // @ts-expect-error a string is not a documented method name
    void v2.make({ method: custom })
    expectTypeOf(v2.make({ method: custom, params: { any: 1 }, unchecked: true })).toEqualTypeOf<
      Promise<AjaxResult<unknown>>
    >()
    void v3.make({ method: 'tasks.task.get', params: { id: 1, extra: true }, unchecked: true })
  })
})
