/**
 * The catalogue follows the docs' own rules, checked at compile time (`npm run typecheck`, `vitest --typecheck`):
 * pages without a Scope line, either/or parameters, unions, nested required fields, deprecated pages filed as notes
 * or under `outdated/`, replacements spelt as the catalogue spells them, the errata for titles that misspell a
 * method, and ids read from results passed back.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { PortalOAuth, V2DeprecatedMethod, V2Method, V2MethodParams, V3Method } from '../../src/index.js'

declare const portal: PortalOAuth
const v2 = portal.actions.v2.call
const v3 = portal.actions.v3.call

describe('the catalogue reads the docs rules', () => {
  it('knows the methods of pages without a Scope line, and those described only in prose', () => {
    void v2.make({
      method: 'event.bind',
      params: { event: 'ONCRMDEALADD', handler: 'https://example.com/h' },
    })
    void v2.make({
      method: 'event.unbind',
      params: { event: 'ONCRMDEALADD', handler: 'https://example.com/h' },
    })
    void v2.make({ method: 'event.get' })
    void v2.make({ method: 'event.test', params: { any: 1 } })
    void v2.make({ method: 'landing.repo.bind', params: { fields: {} } })
    void v3.make({ method: 'rest.scope.list' })
    void v3.make({ method: 'rest.documentation.openapi' })
    // @ts-expect-error event.bind requires the handler
    void v2.make({ method: 'event.bind', params: { event: 'ONCRMDEALADD' } })
  })

  it('takes either of an either/or pair, and refuses neither', () => {
    void v2.make({ method: 'lists.element.get', params: { IBLOCK_TYPE_ID: 'lists', IBLOCK_ID: 47 } })
    void v2.make({ method: 'lists.element.get', params: { IBLOCK_TYPE_ID: 'lists', IBLOCK_CODE: 'clients' } })
    // @ts-expect-error at least one of IBLOCK_ID or IBLOCK_CODE
    void v2.make({ method: 'lists.element.get', params: { IBLOCK_TYPE_ID: 'lists' } })
    void v2.make({
      method: 'telephony.externalCall.register',
      params: { PHONE_NUMBER: '+1000', TYPE: 1, USER_PHONE_INNER: '101' },
    })
    // @ts-expect-error at least one of USER_ID or USER_PHONE_INNER
    void v2.make({ method: 'telephony.externalCall.register', params: { PHONE_NUMBER: '+1000', TYPE: 1 } })
  })

  it('types a documented union as the union', () => {
    expectTypeOf<NonNullable<V2MethodParams['bizproc.robot.update']['FIELDS']['NAME']>>().toEqualTypeOf<
      string | Record<string, unknown>
    >()
    void v2.make({ method: 'bizproc.robot.update', params: { CODE: 'r', FIELDS: { NAME: { en: 'Robot' } } } })
  })

  it('types nested fields with their required ones (crm.activity.type.add, v3 tasks.task.add)', () => {
    void v2.make({ method: 'crm.activity.type.add', params: { fields: { TYPE_ID: 'T', NAME: 'Type' } } })
    // @ts-expect-error crm.activity.type.add requires fields
    void v2.make({ method: 'crm.activity.type.add' })
    // @ts-expect-error fields.TYPE_ID is required
    void v2.make({ method: 'crm.activity.type.add', params: { fields: { NAME: 'Type' } } })
    // @ts-expect-error creatorId and responsibleId are required
    void v3.make({ method: 'tasks.task.add', params: { fields: { title: 't' } } })
  })

  it('marks "Deprecated method" notes and outdated/ pages deprecated', () => {
    expectTypeOf<
      'im.search.last.get' | 'imbot.app.register' | 'catalog.document.confirm'
    >().toExtend<V2DeprecatedMethod>()
    expectTypeOf<'crm.item.add'>().not.toExtend<V2DeprecatedMethod>()
  })

  it('names a replacement the catalogue can call (tasks.task.getaccess)', () => {
    void v2.make({ method: 'tasks.task.getaccess', params: { taskId: 1 } })
    expectTypeOf<'tasks.task.getaccess'>().toExtend<V2Method>()
  })

  it('knows the real names where a title misspells them', () => {
    expectTypeOf<
      'crm.automation.trigger.delete' | 'department.delete' | 'im.recent.pin'
    >().toExtend<V2Method>()
    expectTypeOf<'humanresources.employee.search'>().toExtend<V3Method>()
    expectTypeOf<'ctrigger.delete'>().not.toExtend<V2Method>()
    expectTypeOf<'department.department.delete'>().not.toExtend<V2Method>()
    expectTypeOf<'im.recent'>().not.toExtend<V2Method>()
    expectTypeOf<'humanresourses.employee.search'>().not.toExtend<V3Method>()
  })

  it('passes an id read from a result back into a call, as the portal takes numeric strings', async () => {
    const deals = await v2.make({ method: 'crm.deal.list', params: { select: ['ID'] } })
    const id = deals.getData()?.result[0]?.ID
    if (id !== undefined) void v2.make({ method: 'crm.deal.get', params: { id } })
    void v2.make({ method: 'crm.item.get', params: { entityTypeId: '2', id: '410' } })
    // @ts-expect-error a string that is no number is no id
    void v2.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: 'four' } })
  })
})
