/**
 * `actions.vN.methods[name](params, options)` against the emulator: on the wire the same request as
 * `call.make({ ...options, method: name, params })`, with the same result; the names JavaScript itself reads of an
 * object (`then`, `toJSON`, `toString`) send nothing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { RequestLogEntry } from '../../src/testing/index.js'
import { type Rig, startRig } from '../helpers.js'
import { rigSecrets } from '../url-checks.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

/** What a request put on the wire, without what differs between any two (time, ids of the log). */
function wire(entry: RequestLogEntry | undefined): unknown {
  return {
    path: entry?.path,
    httpMethod: entry?.httpMethod,
    body: entry?.body,
    requestId: entry?.headers['x-request-id'],
    status: entry?.status,
  }
}

describe('actions.vN.methods', () => {
  it('v2: a method by its name sends what call.make sends and resolves the same', async () => {
    rig = await startRig()
    const { v2 } = rig.portal.actions
    const byName = await v2.methods['crm.item.add'](
      { entityTypeId: 2, fields: { title: 'By name' } },
      { requestId: 'add-by-name' },
    )
    const made = await v2.call.make({
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'By name' } },
      requestId: 'add-by-name',
    })
    expect(byName.isSuccess).toBe(true)
    const [first, second] = rig.emulator.log.restRequests()
    expect(wire(first)).toEqual(wire(second))
    expect(first?.path).toBe('/rest/crm.item.add')
    expect(first?.headers['x-request-id']).toBe('add-by-name')
    expect(byName.getQuery()).toEqual(made.getQuery())
    // Two items, one per call: the same answer but for the id.
    const added = byName.getData()?.result.item
    expect(added?.title).toBe('By name')
    expect(made.getData()?.result.item.id).toBe((added?.id ?? 0) + 1)
    const got = await v2.methods['crm.item.get']({ entityTypeId: 2, id: added?.id ?? 0 })
    expect(got.getData()?.result.item.title).toBe('By name')
  })

  it('v2 without parameters, and v3 on its own path', async () => {
    rig = await startRig()
    const { v2, v3 } = rig.portal.actions
    const me = await v2.methods.profile()
    expect(me.getData()?.result.ID).toBe('1')
    const task = await v3.methods['tasks.task.add']({
      fields: { title: 'Write docs', creatorId: 1, responsibleId: 1 },
    })
    const id = task.getData()?.result.item.id ?? 0
    const got = await v3.methods['tasks.task.get']({ id })
    expect(got.getData()?.result.item.title).toBe('Write docs')
    expect(rig.emulator.log.restRequests().map((entry) => entry.path)).toEqual([
      '/rest/profile',
      '/rest/api/tasks.task.add',
      '/rest/api/tasks.task.get',
    ])
  })

  it("a name the portal lacks resolves with the portal's error; the same function each time", async () => {
    rig = await startRig()
    const methods = rig.portal.actions.v2.methods as unknown as Record<string, () => Promise<unknown>>
    expect(methods['no.such.method']).toBe(methods['no.such.method'])
    const missing = (await methods['no.such.method']!()) as {
      isSuccess: boolean
      getErrorMessages(): string[]
    }
    expect(missing.isSuccess).toBe(false)
    expect(missing.getErrorMessages()).toEqual(['Method not found!'])
  })

  it('a name or parameters make would refuse are refused the same, naming the field; nothing is sent', async () => {
    rig = await startRig()
    const { v2 } = rig.portal.actions
    const loose = v2.methods as unknown as Record<string, (params?: unknown) => Promise<unknown>>
    // A name read from elsewhere (a request, a file) cannot change the URL: make's own rule.
    const byName = await loose['../oauth/token']!().catch((error: unknown) => error as Error)
    const made = await v2.call
      .make({ method: '../oauth/token', unchecked: true })
      .catch((error: unknown) => error as Error)
    expect(byName).toBeInstanceOf(Error)
    expect((byName as Error).message).toBe((made as Error).message)
    expect((byName as Error).message).toContain('v2 call: method must be a REST method name')
    const badParams = await loose['crm.item.get']!('id=1').catch((error: unknown) => error as Error)
    expect((badParams as Error).message).toContain('v2 call: params must be a plain object, got string')
    expect(rig.emulator.log.restRequests()).toEqual([])
    // Nothing of the pair or the application's secret in what the caller gets.
    for (const failure of [byName, badParams] as Error[])
      for (const secret of rigSecrets(rig)) {
        expect(failure.message).not.toContain(secret)
        expect(JSON.stringify(failure)).not.toContain(secret)
      }
  })

  it('what JavaScript reads of any object sends nothing: await, JSON.stringify, String', async () => {
    rig = await startRig()
    const { methods } = rig.portal.actions.v2
    expect((methods as unknown as { then?: unknown }).then).toBeUndefined()
    expect(await Promise.resolve(methods)).toBe(methods)
    expect(JSON.stringify(methods)).toBe('{}')
    expect(String(methods)).toBe('[object Object]')
    expect(rig.emulator.log.restRequests()).toEqual([])
  })
})
