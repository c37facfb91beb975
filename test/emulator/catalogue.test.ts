/**
 * The emulator answers every method of the catalogue: through the public client, an unknown name is the portal's
 * 404, a missing required parameter is refused naming it, and the documented methods no test defined answer
 * generically from a store per entity.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { EmulatorListPage } from '../../src/testing/index.js'
import { startFastRig } from '../actions/fast-rig.js'
import type { Rig } from '../helpers.js'
import { type Json, request } from './helpers.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** The last REST answer the emulator logged: status and error code. */
function lastAnswer(rig: Rig): [number, string | undefined] {
  const entry = rig.emulator.log.restRequests().at(-1)
  return [entry?.status ?? 0, entry?.errorCode]
}

interface Requisite {
  ID: string
  NAME: string
}

describe('the emulator knows the catalogue', () => {
  it('answers ERROR_METHOD_NOT_FOUND 404 for a name outside it, on v2 and v3', async () => {
    rig = await startFastRig()
    const v2 = await rig.portal.actions.v2.call.make({ method: 'crm.requisite.lsit', unchecked: true })
    expect(v2.getErrors()[0]).toMatchObject({ code: 'ERROR_METHOD_NOT_FOUND', status: 404 })
    expect(lastAnswer(rig)).toEqual([404, 'ERROR_METHOD_NOT_FOUND'])
    const v3 = await rig.portal.actions.v3.call.make({ method: 'tasks.task.gte', unchecked: true })
    expect(v3.getErrors()[0]).toMatchObject({
      code: 'BITRIX_REST_V3_EXCEPTION_METHODNOTFOUNDEXCEPTION',
      status: 404,
    })
    // A v2 method does not answer on v3, but a REST 3.0 page the catalogue files with the v2 methods does.
    const v2OnlyOnV3 = await rig.portal.actions.v3.call.make({
      method: 'crm.requisite.list',
      unchecked: true,
    })
    expect(v2OnlyOnV3.getStatus()).toBe(404)
    const migrated = await rig.portal.actions.v3.call.make({
      method: 'tasks.task.field.list',
      unchecked: true,
    })
    expect([migrated.getStatus(), migrated.getData()?.result]).toEqual([200, { items: [] }])
  })

  it('refuses a missing required parameter naming it: v2 ERROR_ARGUMENT with argument, v3 validation', async () => {
    rig = await startFastRig()
    const v2 = await rig.portal.actions.v2.call.make({ method: 'crm.requisite.get', unchecked: true })
    expect(v2.getErrors()[0]).toMatchObject({
      code: 'ERROR_ARGUMENT',
      message: "Argument 'id' is null or empty",
      status: 400,
    })
    const nested = await rig.portal.actions.v2.call.make({
      method: 'crm.deal.contact.add',
      params: { id: 1 },
      unchecked: true,
    })
    expect(nested.getErrorMessages()).toEqual(["Argument 'fields' is null or empty"])
    const v3 = await rig.portal.actions.v3.call.make({
      method: 'tasks.task.update',
      params: { fields: { title: 'x' } },
      unchecked: true,
    })
    // The docs' shape: the request's message, then the field's (which the client gives as `field: message`).
    expect(v3.getErrors().map(({ code, message, status }) => ({ code, message, status }))).toEqual([
      {
        code: 'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
        message: 'Error during request object validation',
        status: 400,
      },
      {
        code: 'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
        message: 'id: Required field `id` is not specified',
        status: 400,
      },
    ])
  })

  it('puts the parameter in the wire answer: `argument` on v2, `validation` on v3', async () => {
    rig = await startFastRig()
    const { accessToken } = rig.emulator.issueAuthParams()
    const post = (path: string, body: Json) =>
      request(`${rig?.emulator.clientEndpoint}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, auth: accessToken }),
      })
    const v2 = await post('crm.requisite.update', { id: 1 })
    expect([v2.status, v2.body]).toEqual([
      400,
      {
        error: 'ERROR_ARGUMENT',
        error_description: "Argument 'fields' is null or empty",
        argument: 'fields',
      },
    ])
    const v3 = await post('api/tasks.task.delete', {})
    expect([v3.status, v3.body]).toEqual([
      400,
      {
        error: {
          code: 'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
          message: 'Error during request object validation',
          validation: [{ field: 'id', message: 'Required field `id` is not specified' }],
        },
      },
    ])
  })

  it('adds, gets, lists, updates and deletes an item of a catalogue entity, after the three the docs seed', async () => {
    rig = await startFastRig()
    const { v2 } = rig.portal.actions
    const seeded = await v2.call.make<Requisite[]>({ method: 'crm.requisite.list' })
    expect(seeded.getData()?.result?.map((row) => row.ID)).toEqual(['1', '2', '3'])
    const added = await v2.call.make<number>({
      method: 'crm.requisite.add',
      params: { fields: { NAME: 'Main' } },
    })
    const id = added.getData()?.result
    expect(id).toBe(4)
    const second = await v2.call.make<number>({
      method: 'crm.requisite.add',
      params: { fields: { NAME: 'Other' } },
    })
    expect(second.getData()?.result).toBe(5)

    const got = await v2.call.make<Requisite>({ method: 'crm.requisite.get', params: { id: 4 } })
    expect(got.getData()?.result).toMatchObject({ NAME: 'Main', ID: '4' })

    const listed = await v2.call.make<Requisite[]>({ method: 'crm.requisite.list' })
    expect(
      listed
        .getData()
        ?.result?.slice(3)
        .map((row) => row.NAME),
    ).toEqual(['Main', 'Other'])
    expect(listed.getTotal()).toBe(5)

    const updated = await v2.call.make({
      method: 'crm.requisite.update',
      params: { id: 4, fields: { NAME: 'Renamed' } },
    })
    expect(updated.getData()?.result).toBe(true)
    const again = await v2.call.make<Requisite>({ method: 'crm.requisite.get', params: { id: 4 } })
    expect(again.getData()?.result).toMatchObject({ NAME: 'Renamed', ID: '4' })

    const deleted = await v2.call.make({ method: 'crm.requisite.delete', params: { id: 4 } })
    expect(deleted.getData()?.result).toBe(true)
    const gone = await v2.call.make({ method: 'crm.requisite.get', params: { id: 4 } })
    // The error crm-requisite-get.md shows: an empty code, the id in the message.
    expect(gone.getErrors()[0]).toMatchObject({
      code: '',
      description: "The Requisite with ID '4' is not found",
      status: 400,
    })
    const left = await v2.call.make<Requisite[]>({ method: 'crm.requisite.list' })
    expect(left.getData()?.result?.map((row) => row.ID)).toEqual(['1', '2', '3', '5'])
    // An entity the docs seed nothing for starts empty: its first object has id 1.
    const trigger = await v2.call.make({
      method: 'crm.automation.trigger.add',
      params: { CODE: 'paid', NAME: 'Paid' },
      unchecked: true,
    })
    expect(trigger.getData()?.result).toBe(1)
  })

  it('shares a built-in table: crm.deal.get finds the fixture rows and what crm.deal.add stored', async () => {
    rig = await startFastRig({ lists: { 'crm.deal.list': 3 } })
    const { v2 } = rig.portal.actions
    const fixture = await v2.call.make<Json>({ method: 'crm.deal.get', params: { id: 2 } })
    expect(fixture.getData()?.result).toMatchObject({ ID: '2', TITLE: 'Deal 2' })
    const added = await v2.call.make<number>({ method: 'crm.deal.add', params: { fields: { TITLE: 'New' } } })
    expect(added.getData()?.result).toBe(4)
    await v2.call.make({ method: 'crm.deal.delete', params: { id: 1 } })
    const listed = await v2.call.make<Json[]>({ method: 'crm.deal.list' })
    expect(listed.getData()?.result?.map((row) => row.ID)).toEqual(['2', '3', '4'])
    expect(listed.getTotal()).toBe(3)
  })

  it('pages a catalogue list of 120 items through callList and fetchList', async () => {
    rig = await startFastRig()
    const { v2 } = rig.portal.actions
    const created = await v2.batchByChunk.make({
      calls: Array.from({ length: 120 }, (_, index) => [
        'catalog.product.add',
        { fields: { name: `P${index + 1}` } },
      ]),
      unchecked: true,
    })
    // After the three objects the docs seed.
    expect(created.getData()).toEqual(Array.from({ length: 120 }, (_, index) => index + 4))

    // Rows under `products`, with a lower-case `id`, as the docs' example answer shows them.
    const list = { method: 'catalog.product.list', idKey: 'id', customKeyForResult: 'products' } as const
    const all = await v2.callList.make<{ id: number; name: string }>({ ...list, params: {} })
    expect(all.isSuccess).toBe(true)
    expect(all.getData()?.map((row) => row.id)).toEqual(Array.from({ length: 123 }, (_, i) => i + 1))
    expect(all.getData()?.[3]?.name).toBe('P1')

    const sizes: number[] = []
    for await (const page of v2.fetchList.make<{ id: number }>({ ...list, params: {} })) {
      sizes.push(page.length)
    }
    expect(sizes).toEqual([50, 50, 23])
    // Each list request was answered by the generic list, 50 rows a page.
    expect(
      rig.emulator.log
        .restRequests()
        .filter((entry) => entry.restMethod === 'catalog.product.list')
        .every((entry) => entry.status === 200),
    ).toBe(true)
  })

  it('runs catalogue methods inside a v2 batch, references and errors included', async () => {
    rig = await startFastRig()
    const res = await rig.portal.actions.v2.batch.make({
      calls: {
        add: ['crm.requisite.add', { fields: { NAME: 'Batch' } }],
        get: ['crm.requisite.get', { id: '$result[add]' }],
        deal: ['crm.deal.get', { id: 7 }],
        missing: ['crm.requisite.get', {}],
        unknown: ['crm.requisite.nope', {}],
      },
      options: { isHaltOnError: false },
      // A missing parameter and an unknown name on purpose.
      unchecked: true,
    })
    const data = res.getData()
    expect(data?.add).toBe(4)
    expect(data?.get).toMatchObject({ NAME: 'Batch', ID: '4' })
    expect(data?.deal).toMatchObject({ ID: '7' })
    expect(res.getErrorMessages()).toEqual([
      "command missing (crm.requisite.get): Argument 'id' is null or empty",
      'command unknown (crm.requisite.nope): Method not found!',
    ])
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('runs catalogue methods inside a v3 batch: the generic update changes what the built-in get answers', async () => {
    rig = await startFastRig()
    const res = await rig.portal.actions.v3.batch.make({
      calls: [
        {
          method: 'tasks.task.add',
          params: { fields: { title: 'Call Ann', creatorId: 1, responsibleId: 1 } },
          as: 'task',
        },
        {
          method: 'tasks.task.update',
          params: { id: { $ref: 'task.item.id' }, fields: { title: 'Call Bob' } },
        },
        { method: 'tasks.task.get', params: { id: { $ref: 'task.item.id' } } },
        { method: 'tasks.task.delete', params: { id: 1 } },
      ],
    })
    expect(res.getErrors()).toEqual([])
    const [, updated, got, deleted] = res.getData() ?? []
    expect(updated).toEqual({ result: true })
    expect(got).toMatchObject({ item: { title: 'Call Bob', creatorId: 1, responsibleId: 1, id: 121 } })
    expect(deleted).toEqual({ result: true })
    const gone = await rig.portal.actions.v3.call.make({ method: 'tasks.task.delete', params: { id: 1 } })
    expect(gone.getErrors()[0]).toMatchObject({
      code: 'BITRIX_REST_V3_EXCEPTION_ENTITYNOTFOUNDEXCEPTION',
      message: 'Record with ID = `1` not found',
    })
  })

  it('lets a method the test defines win over the generic answer, before and after it was used', async () => {
    rig = await startFastRig()
    const { v2 } = rig.portal.actions
    const generic = await v2.call.make({ method: 'crm.requisite.get', params: { id: 5 } })
    expect(generic.getErrors()[0]?.description).toBe("The Requisite with ID '5' is not found")
    rig.emulator.defineMethod('crm.requisite.get', (params) => ({
      ID: String(params.id ?? ''),
      NAME: 'Defined',
    }))
    const defined = await v2.call.make<Requisite>({ method: 'crm.requisite.get', params: { id: 5 } })
    expect(defined.getData()?.result).toEqual({ ID: '5', NAME: 'Defined' })
    // A defined list keeps its own paging.
    rig.emulator.defineMethod('crm.requisite.list', () => new EmulatorListPage([{ ID: '9' }], { total: 1 }))
    const listed = await v2.call.make<Requisite[]>({ method: 'crm.requisite.list' })
    expect(listed.getData()?.result).toEqual([{ ID: '9' }])
    // A defined method needs none of the catalogue's required parameters.
    const noId = await v2.call.make({ method: 'crm.requisite.get', unchecked: true })
    expect(noId.getData()?.result).toEqual({ ID: '', NAME: 'Defined' })
  })
})
