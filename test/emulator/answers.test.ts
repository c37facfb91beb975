/**
 * The emulator's objects are the docs' own example answers: through the public client, each of the 30 methods the
 * docs cite most (and those that looked thinnest: crm.deal.get and .fields, user.current, disk.storage.getList)
 * answers every key its page's example shows, in the example's shape; an id read from one answer goes into the next
 * call as it is; an unknown id answers the error its page shows.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MOST_CITED, V2_EXAMPLES, V3_EXAMPLES } from '../../src/catalogue/answers.generated.js'
import { shapeOf } from '../../src/testing/answers.js'
import { loadCatalogue } from '../../src/testing/catalogue.js'
import type { EmulatorApiVersion } from '../../src/testing/index.js'
import { startFastRig } from '../actions/fast-rig.js'
import type { Rig } from '../helpers.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** The methods whose answers the test holds: the most cited, and the ones the emulator answered thinnest before. */
const HELD = [
  ...MOST_CITED,
  'v2 crm.deal.get',
  'v2 crm.deal.fields',
  'v2 user.current',
  'v2 disk.storage.getList',
  'v2 disk.storage.get',
]

/** Parameters a call needs to pass the catalogue's check: each required one, an id 1 and anything else `x`. */
async function requiredParams(version: EmulatorApiVersion, method: string): Promise<Record<string, unknown>> {
  const params: Record<string, Record<string, unknown> | unknown> = {}
  const required = (await loadCatalogue())[version].get(method.toLowerCase())?.required ?? []
  for (const entry of required) {
    const [name = '', field] = (entry.split('/')[0] ?? '').split('.')
    const value = /id$/i.test(field ?? name) ? (name === 'entityTypeId' ? 2 : 1) : 'x'
    params[name] =
      field === undefined
        ? value
        : { ...(params[name] as Record<string, unknown> | undefined), [field]: value }
  }
  return params
}

/** Keys of the objects of an answer, the union over its rows; a fields description: its field names. */
function keysOf(result: unknown, fields: boolean): string[] {
  if (fields) {
    const description = (result as { fields?: unknown }).fields ?? result
    return Object.keys(description as object)
  }
  return [...new Set((shapeOf(result)?.rows ?? []).flatMap((row) => Object.keys(row)))]
}

describe("the emulator answers the docs' examples", () => {
  it('answers each of the most cited methods with every key of its example, in its shape', async () => {
    rig = await startFastRig()
    expect(MOST_CITED).toHaveLength(30)
    const missing: Record<string, string[]> = {}
    const shapes: Record<string, unknown> = {}
    for (const held of HELD) {
      const [version = 'v2', method = ''] = held.split(' ') as [EmulatorApiVersion, string]
      const example = (version === 'v2' ? V2_EXAMPLES : V3_EXAMPLES)[method]
      expect(example, `${held} has an example answer`).toBeDefined()
      const answer = await rig.portal.actions[version].call.make({
        method,
        params: await requiredParams(version, method),
        unchecked: true,
      })
      expect(answer.getErrorMessages(), held).toEqual([])
      const result = answer.getData()?.result
      const fields = /fields$/i.test(method)
      const lacking = keysOf(example, fields).filter((key) => !keysOf(result, fields).includes(key))
      if (lacking.length > 0) missing[held] = lacking
      const [want, got] = [shapeOf(example), shapeOf(result)]
      if (!fields && (want?.wrapper !== got?.wrapper || want?.list !== got?.list))
        shapes[held] = { example: [want?.wrapper, want?.list], answer: [got?.wrapper, got?.list] }
    }
    expect(missing).toEqual({})
    expect(shapes).toEqual({})
  })

  it('reads real values where the types say so: crm.item.get has the 77 keys of its example, tasks.task.get 65', async () => {
    rig = await startFastRig()
    const item = (
      await rig.portal.actions.v2.call.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: 3 } })
    ).getData()?.result.item
    expect(Object.keys(item ?? {}).length).toBeGreaterThanOrEqual(77)
    expect(item).toMatchObject({ id: 3, title: 'Item 3', entityTypeId: 2 })
    const task = (
      await rig.portal.actions.v3.call.make({ method: 'tasks.task.get', params: { id: 4 } })
    ).getData()?.result.item
    expect(Object.keys(task ?? {}).length).toBeGreaterThanOrEqual(65)
    expect(task).toMatchObject({ id: 4, title: 'Task 4' })
    const me = (await rig.portal.actions.v2.call.make({ method: 'user.current' })).getData()?.result
    expect(Object.keys(me ?? {}).length).toBeGreaterThanOrEqual(14)
    const storages = (await rig.portal.actions.v2.call.make({ method: 'disk.storage.getList' })).getData()
    expect(storages?.result.length).toBeGreaterThan(0)
    expect(storages?.total).toBe(storages?.result.length)
  })

  it('an id read from one answer goes into the next call as it is', async () => {
    rig = await startFastRig()
    const { v2, v3 } = rig.portal.actions
    const listed = await v2.call.make({ method: 'crm.item.list', params: { entityTypeId: 2 } })
    const first = listed.getData()?.result.items[0]
    expect(first?.id).toBe(1)
    if (first === undefined) return
    const got = await v2.call.make({ method: 'crm.item.get', params: { entityTypeId: 2, id: first.id } })
    const item = got.getData()?.result.item
    expect(item?.id).toBe(first.id)
    if (item === undefined) return
    const updated = await v2.call.make({
      method: 'crm.item.update',
      params: { entityTypeId: 2, id: item.id, fields: { title: 'Renamed' } },
    })
    expect(updated.getData()?.result.item).toMatchObject({ id: item.id, title: 'Renamed' })
    const tasks = await v3.call.make({ method: 'tasks.task.list', params: { select: ['title'] } })
    const task = tasks.getData()?.result.items[0]
    // The id comes whatever `select` names: the next call needs it.
    expect(task).toEqual({ id: 1, title: 'Task 1' })
    if (task === undefined) return
    const again = await v3.call.make({ method: 'tasks.task.get', params: { id: task.id } })
    expect(again.getData()?.result.item.id).toBe(task.id)
  })

  it('an unknown id answers the error its page shows, or its get page, for each method', async () => {
    rig = await startFastRig()
    const errorOf = async (version: EmulatorApiVersion, method: string, params: Record<string, unknown>) => {
      const answer = await rig?.portal.actions[version].call.make({ method, params, unchecked: true })
      const [error] = answer?.getErrors() ?? []
      return [error?.code, error?.description, error?.status]
    }
    // crm-item-get.md: NOT_FOUND "Element not found"; crm-item-update.md shows only the smart process's: the get's.
    expect(await errorOf('v2', 'crm.item.get', { entityTypeId: 2, id: 999 })).toEqual([
      'NOT_FOUND',
      'Element not found',
      400,
    ])
    expect(
      await errorOf('v2', 'crm.item.update', { entityTypeId: 2, id: 999, fields: { title: 'x' } }),
    ).toEqual(['NOT_FOUND', 'Element not found', 400])
    // crm-deal-get.md: "Empty value | Not found"; crm-requisite-get.md; disk-file-get.md; tasks-task-get-rest-v3.md.
    expect(await errorOf('v2', 'crm.deal.get', { id: 999 })).toEqual(['', 'Not found', 400])
    expect(await errorOf('v2', 'crm.requisite.get', { id: 999 })).toEqual([
      '',
      "The Requisite with ID '999' is not found",
      400,
    ])
    expect(await errorOf('v2', 'disk.file.get', { id: 999 })).toEqual([
      'ERROR_NOT_FOUND',
      'Could not find entity with id `999`',
      400,
    ])
    expect(await errorOf('v3', 'tasks.task.get', { id: 999 })).toEqual([
      'BITRIX_REST_V3_EXCEPTION_ENTITYNOTFOUNDEXCEPTION',
      'Record with ID = `999` not found',
      400,
    ])
  })
})
