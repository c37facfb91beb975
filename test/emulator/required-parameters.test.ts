/**
 * Every method the emulator answers checks the catalogue's required parameters first, as the portal does: its
 * built-in handlers (crm.item.*, tasks.task.*) like the generic answer, a group of which at least one must be given
 * ("At least one of IBLOCK_ID or IBLOCK_CODE") accepted with either, and a required field of a required object
 * (v3 tasks.task.add `fields.creatorId`) named.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startFastRig } from '../actions/fast-rig.js'
import type { Rig } from '../helpers.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** The v2 answer of `method` with `params`, sent unchecked (as a caller bypassing the types would). */
async function v2(method: string, params: Record<string, unknown>) {
  rig ??= await startFastRig()
  const answer = await rig.portal.actions.v2.call.make({ method, params, unchecked: true })
  return { ok: answer.isSuccess, error: answer.getErrors()[0], data: answer.getData()?.result }
}

describe('the built-in handlers check the catalogue first', () => {
  it.each([
    ['crm.item.list', {}, 'entityTypeId'],
    ['crm.item.get', { id: 1 }, 'entityTypeId'],
    ['crm.item.get', { entityTypeId: 2 }, 'id'],
    ['crm.item.add', { fields: { title: 'x' } }, 'entityTypeId'],
    ['crm.item.add', { entityTypeId: 2 }, 'fields'],
    ['crm.item.update', { entityTypeId: 2, fields: { title: 'x' } }, 'id'],
  ])('v2 %s with %j is refused naming %s', async (method, params, missing) => {
    const { ok, error } = await v2(method, params)
    expect(ok).toBe(false)
    expect(error).toMatchObject({
      code: 'ERROR_ARGUMENT',
      message: `Argument '${missing}' is null or empty`,
      status: 400,
    })
  })

  it('v2 crm.item.get with its required parameters answers the item', async () => {
    const { ok, data } = await v2('crm.item.get', { entityTypeId: 2, id: 1 })
    expect(ok).toBe(true)
    expect(data).toMatchObject({ item: { id: 1, title: 'Item 1' } })
  })

  it('v3 tasks.task.add names fields, then each required field of it', async () => {
    rig = await startFastRig()
    const add = (params: Record<string, unknown>) =>
      rig?.portal.actions.v3.call.make({ method: 'tasks.task.add', params, unchecked: true })
    expect((await add({}))?.getErrorMessages()).toEqual([
      'Error during request object validation',
      'fields: Required field `fields` is not specified',
    ])
    expect((await add({ fields: { title: 't', responsibleId: 1 } }))?.getErrorMessages()).toEqual([
      'Error during request object validation',
      'fields.creatorId: Required field `fields.creatorId` is not specified',
    ])
    const done = await add({ fields: { title: 't', creatorId: 1, responsibleId: 1 } })
    expect(done?.getData()?.result).toEqual({ item: { id: 121 } })
  })
})

describe('either/or parameters', () => {
  it('lists.element.get takes IBLOCK_ID or IBLOCK_CODE, and refuses neither naming both', async () => {
    expect((await v2('lists.element.get', { IBLOCK_TYPE_ID: 'lists', IBLOCK_ID: 47 })).ok).toBe(true)
    expect((await v2('lists.element.get', { IBLOCK_TYPE_ID: 'lists', IBLOCK_CODE: 'clients' })).ok).toBe(true)
    const neither = await v2('lists.element.get', { IBLOCK_TYPE_ID: 'lists' })
    expect(neither.error).toMatchObject({
      code: 'ERROR_ARGUMENT',
      message: "Argument 'IBLOCK_ID or IBLOCK_CODE' is null or empty",
    })
  })

  it('telephony.externalCall.register takes USER_ID or USER_PHONE_INNER', async () => {
    const call = { PHONE_NUMBER: '+10000000000', TYPE: 1 }
    expect((await v2('telephony.externalCall.register', { ...call, USER_PHONE_INNER: '101' })).ok).toBe(true)
    const neither = await v2('telephony.externalCall.register', call)
    expect(neither.error?.message).toBe("Argument 'USER_ID or USER_PHONE_INNER' is null or empty")
  })
})
