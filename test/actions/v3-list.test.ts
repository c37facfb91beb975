import { afterEach, describe, expect, it } from 'vitest'
import { ListPageError, SdkErrorCode } from '../../src/index.js'
import type { Rig } from '../helpers.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'
import { startFastRig } from './fast-rig.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

function pageParams(rig: Rig): unknown[] {
  return rig.emulator.log.restRequests().map((entry) => {
    const { auth: _auth, ...params } = entry.body as Record<string, unknown>
    return params
  })
}

describe('v3 callList / fetchList: the id keyset with filter triples', () => {
  it('reads every task: order id ASC, the caller filter plus [id, >, last id], pagination.limit', async () => {
    rig = await startFastRig({ lists: { 'tasks.task.list': 120 } })
    const result = await rig.portal.actions.v3.callList.make<{ id: number; title: string }>({
      method: 'tasks.task.list',
      params: { select: ['id', 'title'], filter: [['id', '<=', 110]] },
      requestId: 'tasks',
    })
    expect(result.isSuccess).toBe(true)
    expect(result.getData()?.map((row) => row.id)).toEqual(
      Array.from({ length: 110 }, (_, index) => index + 1),
    )
    expect(pageParams(rig)).toEqual([
      {
        select: ['id', 'title'],
        filter: [['id', '<=', 110]],
        order: { id: 'ASC' },
        pagination: { limit: 50 },
      },
      {
        select: ['id', 'title'],
        filter: [
          ['id', '<=', 110],
          ['id', '>', 50],
        ],
        order: { id: 'ASC' },
        pagination: { limit: 50 },
      },
      {
        select: ['id', 'title'],
        filter: [
          ['id', '<=', 110],
          ['id', '>', 100],
        ],
        order: { id: 'ASC' },
        pagination: { limit: 50 },
      },
    ])
    const requests = rig.emulator.log.restRequests()
    expect(requests.every((entry) => entry.path === '/rest/api/tasks.task.list')).toBe(true)
    expect(requests.every((entry) => entry.authVia === 'body')).toBe(true)
    expectNothingInUrl(requests, rigSecrets(rig))
  })

  it('pagination.limit sets the page size', async () => {
    rig = await startFastRig({ lists: { 'tasks.task.list': 450 } })
    const pages: number[] = []
    for await (const page of rig.portal.actions.v3.fetchList.make<{ id: number }>({
      method: 'tasks.task.list',
      params: { pagination: { limit: 200 } },
    })) {
      pages.push(page.length)
    }
    expect(pages).toEqual([200, 200, 50])
    expect(rig.emulator.log.restRequests()).toHaveLength(3)
  })

  it('refuses order, pagination.page / offset and a non-array filter before any request', async () => {
    rig = await startFastRig()
    const { callList, fetchList } = rig.portal.actions.v3
    await expect(
      callList.make({ method: 'tasks.task.list', params: { order: { title: 'ASC' } } }),
    ).rejects.toThrow(/v3 callList: params.order is set by the keyset algorithm/)
    await expect(
      callList.make({ method: 'tasks.task.list', params: { pagination: { page: 2, limit: 10 } } }),
    ).rejects.toThrow(/params.pagination.page is set by the keyset algorithm/)
    expect(() =>
      fetchList.make({ method: 'tasks.task.list', params: { filter: { id: 1 } }, unchecked: true }),
    ).toThrow(/v3 fetchList: params.filter must be an array/)
    await expect(
      callList.make({ method: 'tasks.task.list', params: { pagination: { limit: 0 } } }),
    ).rejects.toThrow(/pagination.limit must be a positive integer/)
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })

  it("a page the portal rejects: failed Result carrying the portal's v3 error", async () => {
    rig = await startFastRig()
    const result = await rig.portal.actions.v3.callList.make({
      method: 'tasks.task.list',
      params: { filter: [['nope', '=', 1]] },
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]).toMatchObject({
      code: 'BITRIX_REST_V3_EXCEPTION_UNKNOWNDTOPROPERTYEXCEPTION',
      status: 400,
    })
    expect(result.getData()).toEqual([])
  })
})

describe('v3 callTail / fetchTail: the *.tail cursor', () => {
  it('moves cursor.value to the last row of each page (ASC)', async () => {
    rig = await startFastRig({ lists: { 'main.eventlog.tail': 130 } })
    const result = await rig.portal.actions.v3.callTail.make<{ id: number }>({
      method: 'main.eventlog.tail',
      params: { select: ['id'] },
      cursor: { limit: 60 },
    })
    expect(result.isSuccess).toBe(true)
    expect(result.getData()?.map((row) => row.id)).toEqual(
      Array.from({ length: 130 }, (_, index) => index + 1),
    )
    expect(pageParams(rig)).toEqual([
      { select: ['id'], cursor: { field: 'id', order: 'ASC', limit: 60 } },
      { select: ['id'], cursor: { field: 'id', value: 60, order: 'ASC', limit: 60 } },
      { select: ['id'], cursor: { field: 'id', value: 120, order: 'ASC', limit: 60 } },
    ])
  })

  it('starts after cursor.value and walks down with order DESC', async () => {
    rig = await startFastRig({ lists: { 'main.eventlog.tail': 200 } })
    const pages: number[][] = []
    for await (const page of rig.portal.actions.v3.fetchTail.make<{ id: number }>({
      method: 'main.eventlog.tail',
      cursor: { field: 'id', value: 101, order: 'DESC', limit: 50 },
    })) {
      pages.push([page[0]?.id ?? 0, page.at(-1)?.id ?? 0, page.length])
    }
    expect(pages).toEqual([
      [100, 51, 50],
      [50, 1, 50],
    ])
    expect(pageParams(rig).map((params) => (params as { cursor: { value?: number } }).cursor.value)).toEqual([
      101, 51, 1,
    ])
  })

  it('accepts the cursor inside params too, but not both', async () => {
    rig = await startFastRig({ lists: { 'main.eventlog.tail': 10 } })
    const result = await rig.portal.actions.v3.callTail.make({
      method: 'main.eventlog.tail',
      params: { cursor: { value: 5 } },
    })
    expect(result.getData()).toHaveLength(5)
    await expect(
      rig.portal.actions.v3.callTail.make({
        method: 'main.eventlog.tail',
        params: { cursor: { value: 5 } },
        cursor: { value: 1 },
      }),
    ).rejects.toThrow(/params.cursor and the cursor option are both set/)
    await expect(
      rig.portal.actions.v3.callTail.make({
        method: 'main.eventlog.tail',
        cursor: { order: 'UP' as 'ASC' },
      }),
    ).rejects.toThrow(/cursor.order must be 'ASC' or 'DESC'/)
  })

  it('a tail method that ignores the cursor stops with ListNoProgress instead of looping', async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod(
      'test.stuck.tail',
      () => ({ items: Array.from({ length: 50 }, (_, index) => ({ id: index + 1 })) }),
      { versions: ['v3'] },
    )
    const pages: number[] = []
    const run = async (): Promise<void> => {
      for await (const page of rig!.portal.actions.v3.fetchTail.make({
        method: 'test.stuck.tail',
        unchecked: true,
      })) {
        pages.push(page.length)
      }
    }
    const error = await run().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ListPageError)
    expect(error).toMatchObject({ code: SdkErrorCode.ListNoProgress, page: 2 })
    expect(pages).toEqual([50])
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })
})
