/**
 * Compile-time checks (`npm run typecheck`, `vitest --typecheck`) of `actions.vN.methods`: a method by its name takes
 * that method's parameters (required ones required, `params` optional when none is) and the call's options, resolves
 * with the result the docs show, and a name the catalogue lacks does not compile.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { AjaxResult, PortalOAuth, V2MethodResults, V3MethodResults } from '../../src/index.js'

declare const portal: PortalOAuth
const { v2, v3 } = portal.actions

describe('actions.vN.methods', () => {
  it("resolves with the method's documented result, as call.make does", async () => {
    const added = v2.methods['crm.item.add'](
      { entityTypeId: 2, fields: { title: 'Deal' } },
      { requestId: 'add-1' },
    )
    expectTypeOf(added).toEqualTypeOf<Promise<AjaxResult<V2MethodResults['crm.item.add']>>>()
    const made = v2.call.make({
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Deal' } },
    })
    expectTypeOf(added).toEqualTypeOf(made)
    expectTypeOf(v2.methods['crm.item.list']).returns.toEqualTypeOf<
      Promise<AjaxResult<V2MethodResults['crm.item.list']>>
    >()
    expectTypeOf(v3.methods['tasks.task.get']).returns.toEqualTypeOf<
      Promise<AjaxResult<V3MethodResults['tasks.task.get']>>
    >()
    // An id read from one result goes into the next call as it is.
    const id = (await added).getData()?.result.item.id
    if (id !== undefined) void v2.methods['crm.item.get']({ entityTypeId: 2, id })
  })

  it('parameters: required ones required, none needed where the method has no required one', () => {
    void v2.methods.profile()
    void v2.methods['user.current'](undefined, { timeout: 5000 })
    // @ts-expect-error entityTypeId is required
    void v2.methods['crm.item.list']({})
    // @ts-expect-error crm.item.add has required parameters
    void v2.methods['crm.item.add']()
    // @ts-expect-error a parameter crm.item.list does not have
    void v2.methods['crm.item.list']({ entityTypeId: 2, zzNotAParam: 1 })
  })

  it('a name the catalogue lacks does not compile, nor an option make does not take', () => {
    // @ts-expect-error misspelt
    void v2.methods['crm.item.lst']({ entityTypeId: 2 })
    // @ts-expect-error the method is given by the name, not in the options
    void v2.methods['crm.item.list']({ entityTypeId: 2 }, { method: 'crm.item.get' })
  })
})
