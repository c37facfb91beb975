/**
 * The vendor's own JS SDK (`@bitrix24/b24jssdk`, a devDependency) runs against the emulator through each of its v2
 * and v3 entry points, so that what passes on the emulator means something on a portal: `call`, `callList`,
 * `fetchList`, `batch`, `batchByChunk` on both, and v3 `callTail` / `fetchTail`. Its v3 lists send
 * `pagination: { page: 0 }` with a keyset filter, which the emulator takes as the first page (docs/catalogue.md,
 * "In the emulator").
 */
import { B24OAuth, LoggerFactory } from '@bitrix24/b24jssdk'
import { afterEach, describe, expect, it } from 'vitest'
import type { PortalEmulator } from '../../src/testing/index.js'
import { emulator } from './helpers.js'

/** The vendor's client on a fresh pair of `emu`, silent and unpaced (the emulator does not limit these tests). */
async function vendorClient(emu: PortalEmulator): Promise<B24OAuth> {
  const secret = { clientId: emu.clientId, clientSecret: emu.clientSecret }
  const client = new B24OAuth(await emu.issueAuthParams(), secret, {
    restrictionParams: { rateLimit: { burstLimit: 1_000_000, drainRate: 1_000_000, adaptiveEnabled: false } },
  })
  client.setLogger(LoggerFactory.createNullLogger())
  client.offClientSideWarning()
  clients.push(client)
  return client
}

const clients: B24OAuth[] = []
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy()
})

/** Every row of an async generator of pages. */
async function collect<T>(pages: AsyncGenerator<T[]>): Promise<T[]> {
  const rows: T[] = []
  for await (const page of pages) rows.push(...page)
  return rows
}

const ids = (rows: unknown[], key = 'id') => rows.map((row) => Number((row as Record<string, unknown>)[key]))
const upTo = (n: number) => Array.from({ length: n }, (_, index) => index + 1)

describe('the vendor JS SDK against the emulator', () => {
  it('v2: call, callList, fetchList, batch, batchByChunk', async () => {
    const emu = await emulator({ rateLimit: false, lists: { 'crm.contact.list': 120 } })
    const { v2 } = (await vendorClient(emu)).actions
    const me = await v2.call.make({ method: 'user.current' })
    expect(me.isSuccess).toBe(true)
    expect(me.getData()?.result).toMatchObject({ ID: '1' })

    const listed = await v2.callList.make({
      method: 'crm.contact.list',
      params: { select: ['ID'] },
      idKey: 'ID',
    })
    expect(listed.getErrorMessages()).toEqual([])
    expect(ids(listed.getData() ?? [], 'ID')).toEqual(upTo(120))
    const fetched = await collect(
      v2.fetchList.make({ method: 'crm.contact.list', params: { select: ['ID'] }, idKey: 'ID' }),
    )
    expect(ids(fetched, 'ID')).toEqual(upTo(120))

    const batch = await v2.batch.make({
      calls: {
        time: { method: 'server.time' },
        item: { method: 'crm.item.get', params: { entityTypeId: 2, id: 1 } },
      },
    })
    expect(batch.getErrorMessages()).toEqual([])
    const chunks = await v2.batchByChunk.make({
      calls: upTo(60).map((id) => ({ method: 'crm.item.get', params: { entityTypeId: 2, id } })),
    })
    expect(chunks.getErrorMessages()).toEqual([])
    expect(chunks.getData()).toHaveLength(60)
  })

  it('v3: call, callList and fetchList (pagination page 0), callTail, fetchTail, batch, batchByChunk', async () => {
    const emu = await emulator({
      rateLimit: false,
      lists: { 'tasks.task.list': 120, 'main.eventlog.tail': 75 },
    })
    const { v3 } = (await vendorClient(emu)).actions
    const task = await v3.call.make({ method: 'tasks.task.get', params: { id: 1, select: ['id', 'title'] } })
    expect(task.getData()?.result).toEqual({ item: { id: 1, title: 'Task 1' } })

    const listed = await v3.callList.make({
      method: 'tasks.task.list',
      params: { select: ['id'] },
      idKey: 'id',
      customKeyForResult: 'items',
    })
    expect(listed.getErrorMessages()).toEqual([])
    expect(ids(listed.getData() ?? [])).toEqual(upTo(120))
    const fetched = await collect(
      v3.fetchList.make({
        method: 'tasks.task.list',
        params: { select: ['id'] },
        customKeyForResult: 'items',
      }),
    )
    expect(ids(fetched)).toEqual(upTo(120))
    const sent = emu.log.restRequests().find((entry) => entry.restMethod === 'tasks.task.list')
    expect((sent?.body as { pagination?: unknown } | undefined)?.pagination).toEqual({ page: 0, limit: 50 })

    const tail = await v3.callTail.make({ method: 'main.eventlog.tail' })
    expect(tail.getErrorMessages()).toEqual([])
    expect(ids(tail.getData() ?? [])).toEqual(upTo(75))
    expect(ids(await collect(v3.fetchTail.make({ method: 'main.eventlog.tail' })))).toEqual(upTo(75))

    const batch = await v3.batch.make({
      calls: [
        { method: 'tasks.task.get', params: { id: 2, select: ['id'] } },
        { method: 'tasks.task.list', params: { select: ['id'], pagination: { limit: 3 } } },
      ],
    })
    expect(batch.getErrorMessages()).toEqual([])
    const chunks = await v3.batchByChunk.make({
      calls: upTo(60).map((id) => ({ method: 'tasks.task.get', params: { id, select: ['id'] } })),
    })
    expect(chunks.getErrorMessages()).toEqual([])
    expect(chunks.getData()).toHaveLength(60)
  })

  it("v3: a request validation error reads as the docs show it, the field's message once", async () => {
    const emu = await emulator({ rateLimit: false })
    const { v3 } = (await vendorClient(emu)).actions
    const missing = await v3.call.make({ method: 'tasks.task.get', params: {} })
    expect(missing.isSuccess).toBe(false)
    const messages = missing.getErrorMessages()
    expect(messages.join('\n')).toContain('Error during request object validation')
    expect(messages.join('\n').split('Required field `id` is not specified')).toHaveLength(2)
  })
})
