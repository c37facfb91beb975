import { afterEach, describe, expect, it } from 'vitest'
import { SdkErrorCode } from '../../src/index.js'
import type { Rig } from '../helpers.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'
import { startFastRig } from './fast-rig.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

type V3Body = Record<string, unknown>

function bodies(rig: Rig): V3Body[] {
  return rig.emulator.log.restRequests().map((entry) => entry.body as V3Body)
}

interface Task {
  item: { id: number; title: string }
}

describe('v3 batch on the wire', () => {
  it('sends { "0": { method, query, as? }, ..., auth } to /rest/api/batch: the token in the body, never the URL', async () => {
    rig = await startFastRig()
    const result = await rig.portal.actions.v3.batch.make({
      calls: [
        {
          method: 'tasks.task.add',
          params: { fields: { title: 'Batch me', creatorId: 1, responsibleId: 1 } },
          as: 'created',
        },
        ['tasks.task.get', { id: { $ref: 'created.item.id' }, select: ['id', 'title'] }],
      ],
      options: { requestId: 'v3-batch' },
    })
    expect(result.isSuccess).toBe(true)
    const [created, got] = (result.getData() ?? []) as Task[]
    expect(got?.item).toEqual({ id: created?.item.id, title: 'Batch me' })

    const [entry] = rig.emulator.log.restRequests()
    expect(entry).toMatchObject({ path: '/rest/api/batch', apiVersion: 'v3', authVia: 'body' })
    expectNothingInUrl([entry], rigSecrets(rig))
    expect(entry?.headers.authorization).toBeUndefined()
    expect(entry?.headers['x-request-id']).toBe('v3-batch')
    expect(entry?.body).toEqual({
      '0': {
        method: 'tasks.task.add',
        query: { fields: { title: 'Batch me', creatorId: 1, responsibleId: 1 } },
        as: 'created',
      },
      '1': { method: 'tasks.task.get', query: { id: { $ref: 'created.item.id' }, select: ['id', 'title'] } },
      auth: rig.emulator.currentAccessToken,
    })
  })

  it('named commands become `as` aliases and key the results', async () => {
    rig = await startFastRig({ lists: { 'tasks.task.list': 10 } })
    const result = await rig.portal.actions.v3.batch.make({
      calls: { one: ['tasks.task.get', { id: 1 }], two: ['tasks.task.get', { id: 2 }] },
      options: { returnAjaxResult: true },
    })
    const data = result.getData()
    expect(data?.one?.getData()?.result).toMatchObject({ item: { id: 1 } })
    expect(data?.two?.getQuery()).toEqual({ apiVersion: 'v3', method: 'tasks.task.get', params: { id: 2 } })
    expect(bodies(rig)[0]).toMatchObject({
      '0': { method: 'tasks.task.get', query: { id: 1 }, as: 'one' },
      '1': { method: 'tasks.task.get', query: { id: 2 }, as: 'two' },
    })
  })

  it('all-or-nothing: a failing command fails the request and every command, whatever isHaltOnError says', async () => {
    rig = await startFastRig({ lists: { 'tasks.task.list': 10 } })
    for (const isHaltOnError of [true, false]) {
      const result = await rig.portal.actions.v3.batch.make({
        calls: [
          ['tasks.task.get', { id: 1 }],
          ['tasks.task.get', {}],
        ],
        options: { isHaltOnError, returnAjaxResult: true },
        unchecked: true,
      })
      expect(result.isSuccess).toBe(false)
      expect(result.getErrors()[0]).toMatchObject({
        code: 'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
        status: 400,
      })
      expect(result.getData()?.map((entry) => entry.isSuccess)).toEqual([false, false])
      expect(result.getData()?.[0]?.getErrors()[0]?.code).toBe(
        'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
      )
    }
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })

  it('refuses more than 50 commands, a dotted name, and query given beside params', async () => {
    rig = await startFastRig()
    const { batch } = rig.portal.actions.v3
    const calls = Array.from({ length: 51 }, (_, index) => ['tasks.task.get', { id: index + 1 }] as const)
    await expect(batch.make({ calls })).rejects.toMatchObject({ code: SdkErrorCode.BatchTooLarge })
    await expect(batch.make({ calls: { 'a.b': ['tasks.task.get', { id: 1 }] } })).rejects.toThrow(
      /must not contain \[, \] or \./,
    )
    await expect(
      batch.make({
        calls: [{ method: 'tasks.task.get', query: { id: 1 } } as unknown as { method: string }],
        unchecked: true,
      }),
    ).rejects.toThrow(/calls\[0\].query is not a command option \(give the query as params\)/)
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })
})

describe('v3 batchByChunk', () => {
  it('120 commands: 3 requests of 50, 50 and 20, results in input order', async () => {
    rig = await startFastRig({ lists: { 'tasks.task.list': 200 } })
    const calls = Array.from({ length: 120 }, (_, index) => ['tasks.task.get', { id: 120 - index }] as const)
    const result = await rig.portal.actions.v3.batchByChunk.make<Task>({ calls })
    expect(result.isSuccess).toBe(true)
    expect(result.getData()?.map((task) => task?.item.id)).toEqual(
      Array.from({ length: 120 }, (_, i) => 120 - i),
    )
    expect(bodies(rig).map((body) => Object.keys(body).filter((key) => key !== 'auth').length)).toEqual([
      50, 50, 20,
    ])
  })

  it('a failed chunk stops the run under isHaltOnError; without it the next chunks still go', async () => {
    rig = await startFastRig({ lists: { 'tasks.task.list': 200 } })
    const calls = Array.from({ length: 120 }, (_, index) =>
      index === 70 ? (['tasks.task.get', {}] as const) : (['tasks.task.get', { id: index + 1 }] as const),
    )
    const halted = await rig.portal.actions.v3.batchByChunk.make({
      calls,
      options: { returnAjaxResult: true },
      unchecked: true,
    })
    const entries = halted.getData() ?? []
    expect(entries.slice(0, 50).every((entry) => entry.isSuccess)).toBe(true)
    expect(entries.slice(50, 100).every((entry) => !entry.isSuccess)).toBe(true)
    expect(entries.slice(100).every((entry) => entry.hasError(SdkErrorCode.BatchCommandNotRun))).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)

    rig.emulator.log.clear()
    const going = await rig.portal.actions.v3.batchByChunk.make({
      calls,
      options: { isHaltOnError: false },
      unchecked: true,
    })
    const values = going.getData() ?? []
    expect(values.filter((value) => value !== undefined)).toHaveLength(70)
    expect(rig.emulator.log.restRequests()).toHaveLength(3)
  })
})
