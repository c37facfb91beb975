import { afterEach, describe, expect, it } from 'vitest'
import { ListPageError, SdkErrorCode } from '../../src/index.js'
import { EmulatorListPage, EmulatorRestError } from '../../src/testing/index.js'
import type { Rig } from '../helpers.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'
import { startFastRig } from './fast-rig.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

interface Contact {
  ID: string
  NAME: string
}

function pageParams(rig: Rig): unknown[] {
  return rig.emulator.log.restRequests().map((entry) => {
    const { auth: _auth, ...params } = entry.body as Record<string, unknown>
    return params
  })
}

/** `count` rows `{ ID }` starting at `first`, as a v2 list method would answer. */
function rowsFrom(first: number, count: number): Array<{ ID: string }> {
  return Array.from({ length: count }, (_, index) => ({ ID: String(first + index) }))
}

describe('v2 callList: the keyset algorithm on the wire', () => {
  it('reads every row of an upper-case ID list: order ID ASC, >ID of the last row, start -1, stop on a short page', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 120 } })
    const result = await rig.portal.actions.v2.callList.make<Contact>({
      method: 'crm.contact.list',
      params: { select: ['ID', 'NAME'], filter: { TYPE_ID: 'CLIENT' } },
      requestId: 'all-contacts',
    })
    expect(result.isSuccess).toBe(true)
    const rows = result.getData() ?? []
    expect(rows).toHaveLength(120)
    expect(rows.map((row) => Number(row.ID))).toEqual(Array.from({ length: 120 }, (_, index) => index + 1))
    expect(pageParams(rig)).toEqual([
      { select: ['ID', 'NAME'], filter: { TYPE_ID: 'CLIENT' }, order: { ID: 'ASC' }, start: -1 },
      { select: ['ID', 'NAME'], filter: { TYPE_ID: 'CLIENT', '>ID': '50' }, order: { ID: 'ASC' }, start: -1 },
      {
        select: ['ID', 'NAME'],
        filter: { TYPE_ID: 'CLIENT', '>ID': '100' },
        order: { ID: 'ASC' },
        start: -1,
      },
    ])
    const requests = rig.emulator.log.restRequests()
    expect(requests.map((entry) => entry.path)).toEqual(Array(3).fill('/rest/crm.contact.list'))
    expect(requests.every((entry) => entry.headers['x-request-id'] === 'all-contacts')).toBe(true)
    expect(requests.every((entry) => entry.authVia === 'body')).toBe(true)
    expectNothingInUrl(requests, rigSecrets(rig))
  })

  it('reads a lower-case id list wrapped in result.items with idKey and customKeyForResult', async () => {
    rig = await startFastRig({ lists: { 'crm.item.list': 75 } })
    const result = await rig.portal.actions.v2.callList.make<{ id: number }>({
      method: 'crm.item.list',
      params: { entityTypeId: 2 },
      idKey: 'id',
      customKeyForResult: 'items',
    })
    expect(result.isSuccess).toBe(true)
    expect(result.getData()?.map((row) => row.id)).toEqual(
      Array.from({ length: 75 }, (_, index) => index + 1),
    )
    expect(pageParams(rig)).toEqual([
      { entityTypeId: 2, order: { id: 'ASC' }, start: -1 },
      { entityTypeId: 2, order: { id: 'ASC' }, filter: { '>id': 50 }, start: -1 },
    ])
  })

  it('cursorIdKey names the filter and order key when rows carry the id under another key', async () => {
    rig = await startFastRig()
    let calls = 0
    rig.emulator.defineMethod(
      'test.mixed.list',
      (params) => {
        calls += 1
        const after = Number((params.filter as Record<string, unknown> | undefined)?.['>ID'] ?? 0)
        const count = after === 0 ? 50 : 10
        return Array.from({ length: count }, (_, index) => ({ id: after + index + 1 }))
      },
      { versions: ['v2'] },
    )
    const result = await rig.portal.actions.v2.callList.make<{ id: number }>({
      method: 'test.mixed.list',
      unchecked: true,
      idKey: 'id',
      cursorIdKey: 'ID',
    })
    expect(result.getData()).toHaveLength(60)
    expect(calls).toBe(2)
    expect(pageParams(rig)[1]).toEqual({ order: { ID: 'ASC' }, filter: { '>ID': 50 }, start: -1 })
  })

  it('a list of exactly one page needs a second, empty page to know it ended', async () => {
    rig = await startFastRig({ lists: { 'user.get': 50 } })
    const result = await rig.portal.actions.v2.callList.make<{ ID: string }>({ method: 'user.get' })
    expect(result.getData()).toHaveLength(50)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })

  it('an empty list is one request and an empty array', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 0 } })
    const result = await rig.portal.actions.v2.callList.make({ method: 'crm.contact.list' })
    expect(result.isSuccess).toBe(true)
    expect(result.getData()).toEqual([])
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it("refuses a caller's order or start before any request; an explicit ID ASC is accepted", async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 3 } })
    const { callList } = rig.portal.actions.v2
    await expect(
      callList.make({ method: 'crm.contact.list', params: { order: { DATE_CREATE: 'DESC' } } }),
    ).rejects.toThrow(/v2 callList: params.order is set by the keyset algorithm/)
    await expect(
      callList.make({ method: 'crm.contact.list', params: { order: { ID: 'DESC' } } }),
    ).rejects.toMatchObject({ code: 'JSSDK_INVALID_ARGUMENT' })
    await expect(callList.make({ method: 'crm.contact.list', params: { start: 50 } })).rejects.toThrow(
      /params.start is set by the keyset algorithm/,
    )
    await expect(callList.make({ method: 'crm.contact.list', idKey: '' })).rejects.toThrow(
      /idKey must be a non-empty string/,
    )
    expect(() =>
      rig?.portal.actions.v2.fetchList.make({ method: 'crm.contact.list', params: { start: 0 } }),
    ).toThrow(/v2 fetchList: params.start/)
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
    const accepted = await callList.make({
      method: 'crm.contact.list',
      params: { order: { id: 'asc' }, start: -1 },
    })
    expect(accepted.getData()).toHaveLength(3)
    expect(pageParams(rig)).toEqual([{ order: { ID: 'ASC' }, start: -1 }])
  })

  it('keeps the letter case of FILTER / ORDER keys a method reads', async () => {
    rig = await startFastRig({ lists: { 'user.get': 60 } })
    const result = await rig.portal.actions.v2.callList.make<{ ID: string }>({
      method: 'user.get',
      params: { FILTER: { ACTIVE: true } },
    })
    expect(result.getData()).toHaveLength(60)
    expect(pageParams(rig)[1]).toEqual({
      FILTER: { ACTIVE: true, '>ID': '50' },
      order: { ID: 'ASC' },
      start: -1,
    })
  })
})

describe('v2 callList: a list that cannot be read to its end fails clearly', () => {
  it('a full page whose last row has no id: failed Result with the rows read so far, no further request', async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod(
      'test.noid.list',
      () => Array.from({ length: 50 }, (_, index) => ({ NAME: `row ${index}` })),
      {
        versions: ['v2'],
      },
    )
    const result = await rig.portal.actions.v2.callList.make<{ NAME: string }>({
      method: 'test.noid.list',
      unchecked: true,
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]?.code).toBe(SdkErrorCode.ListIdMissing)
    expect(result.getErrorMessages()[0]).toMatch(/last row of page 1 has no usable "ID"/)
    expect(result.getData()).toHaveLength(50)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('a method that ignores the id filter: stops on the repeated page instead of looping', async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod('test.stuck.list', () => rowsFrom(1, 50), { versions: ['v2'] })
    const result = await rig.portal.actions.v2.callList.make<{ ID: string }>({
      method: 'test.stuck.list',
      unchecked: true,
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]?.code).toBe(SdkErrorCode.ListNoProgress)
    expect(result.getData()).toHaveLength(50)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })

  it("a page that fails at REST level: failed Result with the portal's error and the rows before it", async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod(
      'test.flaky.list',
      (params) => {
        const after = Number((params.filter as Record<string, unknown> | undefined)?.['>ID'] ?? 0)
        if (after >= 50) throw new EmulatorRestError('ERROR_CORE', 'Database went away', 500)
        return new EmulatorListPage(rowsFrom(after + 1, 50), { total: 0 })
      },
      { versions: ['v2'] },
    )
    const result = await rig.portal.actions.v2.callList.make<{ ID: string }>({
      method: 'test.flaky.list',
      unchecked: true,
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors().map((error) => [error.code, error.status])).toEqual([['ERROR_CORE', 500]])
    expect(result.getErrorMessages()).toEqual(['Database went away'])
    expect(result.getData()).toHaveLength(50)
  })

  it('an unknown method: failed Result, no rows', async () => {
    rig = await startFastRig()
    const result = await rig.portal.actions.v2.callList.make({ method: 'no.such.list', unchecked: true })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]).toMatchObject({ code: 'ERROR_METHOD_NOT_FOUND', status: 404 })
    expect(result.getData()).toEqual([])
  })

  it('a wrapped list without customKeyForResult says so', async () => {
    rig = await startFastRig({ lists: { 'crm.item.list': 5 } })
    const result = await rig.portal.actions.v2.callList.make({
      method: 'crm.item.list',
      params: { entityTypeId: 2 },
      idKey: 'id',
      unchecked: true,
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]?.code).toBe(SdkErrorCode.ListNotRows)
    expect(result.getErrorMessages()[0]).toMatch(/set customKeyForResult/)
  })
})

describe('v2 fetchList: page by page', () => {
  it('yields each page as it arrives, with the same requests as callList', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 120 } })
    const sizes: number[] = []
    let requestsSeen = 0
    for await (const page of rig.portal.actions.v2.fetchList.make<Contact>({ method: 'crm.contact.list' })) {
      sizes.push(page.length)
      // The next page is not asked for before the loop comes back for it.
      expect(rig.emulator.log.restRequests()).toHaveLength(requestsSeen + 1)
      requestsSeen += 1
    }
    expect(sizes).toEqual([50, 50, 20])
    expect(rig.emulator.log.restRequests()).toHaveLength(3)
  })

  it('break stops the requests', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 500 } })
    const seen: string[] = []
    for await (const page of rig.portal.actions.v2.fetchList.make<Contact>({ method: 'crm.contact.list' })) {
      seen.push(...page.map((row) => row.ID))
      if (seen.length >= 100) break
    }
    expect(seen).toHaveLength(100)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })

  it('throws a ListPageError after yielding the pages before the failure', async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod('test.stuck.list', () => rowsFrom(1, 50), { versions: ['v2'] })
    const pages: number[] = []
    const run = async (): Promise<void> => {
      for await (const page of rig!.portal.actions.v2.fetchList.make({
        method: 'test.stuck.list',
        unchecked: true,
      })) {
        pages.push(page.length)
      }
    }
    const error = await run().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ListPageError)
    expect(error).toMatchObject({ code: SdkErrorCode.ListNoProgress, page: 2 })
    expect(pages).toEqual([50])
  })

  it('an aborted signal cancels the listing', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 500 } })
    const controller = new AbortController()
    const run = async (): Promise<number> => {
      let pages = 0
      for await (const _page of rig!.portal.actions.v2.fetchList.make({
        method: 'crm.contact.list',
        signal: controller.signal,
      })) {
        pages += 1
        if (pages === 2) controller.abort()
      }
      return pages
    }
    await expect(run()).rejects.toMatchObject({ code: 'REQUEST_ABORTED' })
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })
})
