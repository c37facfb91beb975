import { afterEach, describe, expect, it } from 'vitest'
import { AjaxError, AjaxResult, ApiVersion, type FetchLike, SdkErrorCode } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'
import { FAST_CLIENT, startFastRig } from './fast-rig.js'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

interface BatchBody {
  halt: number
  cmd: Record<string, string>
  auth?: string
}

function batchBodies(rig: Rig): BatchBody[] {
  return rig.emulator.log.restRequests().map((entry) => entry.body as BatchBody)
}

interface User {
  ID: string
  NAME: string
}

describe('v2 batch: one request, results keyed like the input', () => {
  it('a list of [method, params]: cmd map with index keys, $result references, results in order', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 80 } })
    const result = await rig.portal.actions.v2.batch.make({
      calls: [
        ['user.current'],
        ['user.get', { ID: '$result[0][ID]' }],
        ['crm.contact.list', { filter: { '>ID': 5 }, select: ['ID'] }],
      ],
      options: { requestId: 'trio' },
    })
    expect(result.isSuccess).toBe(true)
    const [me, users, contacts] = result.getData() ?? []
    expect(me).toMatchObject({ ID: '1', NAME: 'User 1' })
    expect(users).toEqual([me])
    expect((contacts as User[]).map((row) => row.ID).slice(0, 2)).toEqual(['6', '7'])

    const requests = rig.emulator.log.restRequests()
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatchObject({ path: '/rest/batch', authVia: 'body' })
    expectNothingInUrl(requests, rigSecrets(rig))
    expect(requests[0]?.headers['x-request-id']).toBe('trio')
    const { auth, ...body } = batchBodies(rig)[0] ?? ({} as BatchBody)
    expect(auth).toBe(rig.emulator.currentAccessToken)
    expect(body).toEqual({
      halt: 1,
      cmd: {
        '0': 'user.current',
        '1': 'user.get?ID=%24result%5B0%5D%5BID%5D',
        '2': 'crm.contact.list?filter%5B%3EID%5D=5&select%5B0%5D=ID',
      },
    })
  })

  it('named commands { name: [method, params] }: results by name, $result[name] references', async () => {
    rig = await startFastRig()
    const result = await rig.portal.actions.v2.batch.make<User>({
      calls: { me: ['user.current'], again: ['user.get', { ID: '$result[me][ID]' }] },
    })
    expect(result.isSuccess).toBe(true)
    const data = result.getData()
    expect(Object.keys(data ?? {})).toEqual(['me', 'again'])
    expect(data?.me).toMatchObject({ ID: '1' })
    expect(data?.again).toEqual([data?.me])
    expect(batchBodies(rig)[0]?.cmd).toEqual({
      me: 'user.current',
      again: 'user.get?ID=%24result%5Bme%5D%5BID%5D',
    })
  })

  it('{ method, params, as }: `as` names the command on the wire; results stay an array', async () => {
    rig = await startFastRig()
    const result = await rig.portal.actions.v2.batch.make({
      calls: [
        { method: 'user.current', as: 'me' },
        { method: 'user.get', params: { ID: '$result[me][ID]' }, as: 'user' },
      ],
      options: { returnAjaxResult: true },
    })
    const [me, user] = result.getData() ?? []
    expect(me).toBeInstanceOf(AjaxResult)
    expect(me?.getData()?.result).toMatchObject({ ID: '1' })
    expect(user?.getQuery()).toEqual({
      apiVersion: 'v2',
      method: 'user.get',
      params: { ID: '$result[me][ID]' },
    })
    expect(user?.getTotal()).toBe(1)
    expect(user?.getTime()).toMatchObject({ duration: expect.any(Number), processing: expect.any(Number) })
    expect(Object.keys(batchBodies(rig)[0]?.cmd ?? {})).toEqual(['me', 'user'])
  })

  it('returnAjaxResult keeps each list command total and next', async () => {
    rig = await startFastRig({ lists: { 'crm.contact.list': 120 } })
    const result = await rig.portal.actions.v2.batch.make({
      calls: { first: ['crm.contact.list', { start: 0 }], last: ['crm.contact.list', { start: 100 }] },
      options: { returnAjaxResult: true },
    })
    const data = result.getData()
    expect([data?.first?.getTotal(), data?.first?.getNext(), data?.first?.isMore()]).toEqual([120, 50, true])
    expect([data?.last?.getTotal(), data?.last?.getNext(), data?.last?.isMore()]).toEqual([120, false, false])
    expect(data?.last?.getData()?.result).toHaveLength(20)
  })

  it('an empty batch sends nothing', async () => {
    rig = await startFastRig()
    const list = await rig.portal.actions.v2.batch.make({ calls: [] })
    const named = await rig.portal.actions.v2.batch.make({ calls: {} })
    expect([list.isSuccess, list.getData(), named.getData()]).toEqual([true, [], {}])
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })
})

describe('v2 batch: a failing command is a failed entry, not a throw', () => {
  const calls = [['user.current'], ['no.such.method'], ['server.time']] as const

  it('isHaltOnError true (default): halt=1, the commands after it are not run', async () => {
    rig = await startFastRig()
    const plain = await rig.portal.actions.v2.batch.make({ calls: [...calls], unchecked: true })
    expect(plain.isSuccess).toBe(false)
    expect(plain.getErrors().map((error) => error.code)).toEqual(['ERROR_METHOD_NOT_FOUND'])
    expect(plain.getErrorMessages()).toEqual(['command 1 (no.such.method): Method not found!'])
    const [me, missing, time] = plain.getData() ?? []
    expect(me).toMatchObject({ ID: '1' })
    expect([missing, time]).toEqual([undefined, undefined])

    const detailed = await rig.portal.actions.v2.batch.make({
      calls: [...calls],
      options: { returnAjaxResult: true },
      unchecked: true,
    })
    const entries = detailed.getData() ?? []
    expect(entries.map((entry) => entry.isSuccess)).toEqual([true, false, false])
    expect(entries[1]?.getErrors()[0]).toMatchObject({
      code: 'ERROR_METHOD_NOT_FOUND',
      message: 'Method not found!',
    })
    expect(entries[2]?.getErrors()[0]?.code).toBe(SdkErrorCode.BatchCommandNotRun)
    expect(batchBodies(rig).map((body) => body.halt)).toEqual([1, 1])
  })

  it('isHaltOnError false: halt=0, the other commands run', async () => {
    rig = await startFastRig()
    const result = await rig.portal.actions.v2.batch.make({
      calls: [...calls],
      options: { isHaltOnError: false, returnAjaxResult: true },
      unchecked: true,
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()).toHaveLength(1)
    const entries = result.getData() ?? []
    expect(entries.map((entry) => entry.isSuccess)).toEqual([true, false, true])
    expect(entries[2]?.getData()?.result).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(batchBodies(rig)[0]?.halt).toBe(0)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('a failure of the whole request fails every command with the request error', async () => {
    rig = await startFastRig()
    rig.emulator.setRateLimit({ burstLimit: 1, drainRate: 0.001 })
    rig.portal.setRestrictionManagerParams({ maxRetries: 0 })
    await rig.portal.actions.v2.call.make({ method: 'server.time' })
    const result = await rig.portal.actions.v2.batch.make({
      calls: { a: ['server.time'], b: ['user.current'] },
      options: { returnAjaxResult: true },
    })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors()[0]).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', status: 503 })
    expect(result.getData()?.a?.getErrors()[0]?.code).toBe('QUERY_LIMIT_EXCEEDED')
    expect(result.getData()?.b?.isSuccess).toBe(false)
  })
})

describe('v2 batch: the wire format of cmd', () => {
  it('PHP brackets with indices, RFC 3986 encoding, true/false, null as key=; the portal reads back the same values', async () => {
    rig = await startFastRig()
    rig.emulator.defineMethod('test.echo', (params) => params, { versions: ['v2'] })
    const params = {
      fields: { TITLE: "Tom & Jerry's = 100% (*)", COMMENTS: 'a+b c/d?e#f', NAME: 'Ünïcødé ✓' },
      select: ['ID', 'TITLE'],
      filter: { '>=DATE': '2026-01-01', '!STATUS': ['A', 'B'] },
      flags: { on: true, off: false, none: null, skipped: undefined },
      empty: [],
    }
    const result = await rig.portal.actions.v2.batch.make({ calls: [['test.echo', params]], unchecked: true })
    expect(batchBodies(rig)[0]?.cmd['0']).toBe(
      'test.echo?fields%5BTITLE%5D=Tom%20%26%20Jerry%27s%20%3D%20100%25%20%28%2A%29' +
        '&fields%5BCOMMENTS%5D=a%2Bb%20c%2Fd%3Fe%23f&fields%5BNAME%5D=%C3%9Cn%C3%AFc%C3%B8d%C3%A9%20%E2%9C%93' +
        '&select%5B0%5D=ID&select%5B1%5D=TITLE&filter%5B%3E%3DDATE%5D=2026-01-01' +
        '&filter%5B%21STATUS%5D%5B0%5D=A&filter%5B%21STATUS%5D%5B1%5D=B' +
        '&flags%5Bon%5D=true&flags%5Boff%5D=false&flags%5Bnone%5D=',
    )
    expect(result.getData()?.[0]).toEqual({
      fields: params.fields,
      select: ['ID', 'TITLE'],
      filter: { '>=DATE': '2026-01-01', '!STATUS': ['A', 'B'] },
      flags: { on: 'true', off: 'false', none: '' },
    })
  })

  it('more than 50 commands is a clear error before any request; 50 is one request', async () => {
    rig = await startFastRig()
    const calls = Array.from({ length: 51 }, () => ['server.time'] as const)
    const error = await rig.portal.actions.v2.batch.make({ calls }).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: SdkErrorCode.BatchTooLarge })
    expect((error as Error).message).toMatch(
      /51 commands, but one batch carries at most 50; use batchByChunk/,
    )
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
    const fifty = await rig.portal.actions.v2.batch.make({ calls: calls.slice(0, 50) })
    expect(fifty.getData()).toHaveLength(50)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('bad calls fail before any request, naming the command', async () => {
    rig = await startFastRig()
    const { batch } = rig.portal.actions.v2
    await expect(batch.make({ calls: 'user.current' as unknown as [] })).rejects.toThrow(
      /v2 batch: calls must be/,
    )
    await expect(batch.make({ calls: [['bad method?']], unchecked: true })).rejects.toThrow(
      /v2 batch: calls\[0\] method must be/,
    )
    await expect(
      batch.make({ calls: [['user.current', [] as unknown as Record<string, unknown>]], unchecked: true }),
    ).rejects.toThrow(/calls\[0\] params must be a plain object/)
    await expect(
      batch.make({
        calls: [
          { method: 'a.b', as: 'x' },
          { method: 'a.c', as: 'x' },
        ],
        unchecked: true,
      }),
    ).rejects.toThrow(/calls\[1\] repeats the command name "x"/)
    await expect(
      batch.make({ calls: [{ method: 'a.b', as: 'x' }, ['a.c']], unchecked: true }),
    ).rejects.toThrow(/mix integer-like names with other names/)
    await expect(batch.make({ calls: { 'a[0]': ['a.b'] }, unchecked: true })).rejects.toThrow(
      /must not contain \[ or \]/,
    )
    await expect(
      batch.make({ calls: [], options: { isHaltOnError: 'no' as unknown as boolean } }),
    ).rejects.toThrow(/options.isHaltOnError must be a boolean/)
    await expect(batch.make({ calls: [], unchecked: 'yes' as unknown as true })).rejects.toThrow(
      /v2 batch: options.unchecked must be a boolean, got string/,
    )
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })

  it('accepts [] and {} for each of the five maps of the answer', async () => {
    // Why an adapter: the emulator answers empty maps as PHP does (`[]`), and the portal may send `{}` instead,
    // which the emulator never does. The adapter forwards every request to the emulator and, when asked, rewrites
    // the empty maps of its batch answer to `{}`; everything else is the emulator's answer.
    let emptyMapsAsObjects = false
    const adapter: FetchLike = async (input, init) => {
      const response = await fetch(input, init)
      if (!emptyMapsAsObjects) return response
      const body = (await response.json()) as { result?: Record<string, unknown> }
      for (const [key, value] of Object.entries(body.result ?? {})) {
        if (Array.isArray(value) && value.length === 0 && body.result) body.result[key] = {}
      }
      return new Response(JSON.stringify(body), {
        status: response.status,
        headers: { 'content-type': 'application/json' },
      })
    }
    rig = await startRig({
      emulator: { rateLimit: false },
      client: { restrictionParams: FAST_CLIENT, httpOptions: { adapter } },
    })
    for (const asObjects of [false, true]) {
      emptyMapsAsObjects = asObjects
      // The first command fails and halts the batch: result, result_total, result_next and result_time are empty.
      const halted = await rig.portal.actions.v2.batch.make({
        calls: { a: ['no.such.method'], b: ['server.time'] },
        options: { returnAjaxResult: true },
        unchecked: true,
      })
      expect(halted.getData()?.a?.getErrors()[0]).toMatchObject({
        code: 'ERROR_METHOD_NOT_FOUND',
        message: 'Method not found!',
      })
      expect(halted.getData()?.b?.getErrors()[0]?.code).toBe(SdkErrorCode.BatchCommandNotRun)
      // One command that succeeds: result_error, result_total and result_next are empty.
      const done = await rig.portal.actions.v2.batch.make({ calls: { a: ['user.current'] } })
      expect(done.isSuccess).toBe(true)
      expect(done.getData()?.a).toMatchObject({ ID: '1' })
    }
    expect(rig.emulator.log.restRequests()).toHaveLength(4)
  })
})

describe('v2 batch: retries and auth', () => {
  it('a batch of reads is retried after the connection drops; a batch with a write is not', async () => {
    rig = await startFastRig()
    rig.emulator.dropConnections(1, { method: 'batch', after: 'body' })
    const reads = await rig.portal.actions.v2.batch.make({
      calls: [['server.time'], ['crm.item.get', { entityTypeId: 2, id: 1 }]],
      unchecked: true,
    })
    expect(reads.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)

    rig.emulator.log.clear()
    rig.emulator.dropConnections(1, { method: 'batch', after: 'body' })
    const write = rig.portal.actions.v2.batch.make({
      calls: [['server.time'], ['crm.item.add', { entityTypeId: 2, fields: { title: 'once' } }]],
      unchecked: true,
    })
    await expect(write).rejects.toBeInstanceOf(AjaxError)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it("through getHttpClient(), the batch's methods alone tell whether a dropped batch may be sent again", async () => {
    rig = await startFastRig()
    const http = rig.portal.getHttpClient(ApiVersion.v2)
    const batch = (cmd: Record<string, string>) =>
      http.call(
        { method: 'batch', params: { halt: 0, cmd } },
        { methods: Object.values(cmd).map((command) => command.split('?')[0]!) },
      )
    rig.emulator.dropConnections(1, { method: 'batch', after: 'body' })
    expect((await batch({ a: 'server.time', b: 'crm.item.get?entityTypeId=2&id=1' })).isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)

    rig.emulator.log.clear()
    rig.emulator.dropConnections(1, { method: 'batch', after: 'body' })
    await expect(
      batch({ a: 'server.time', b: 'crm.item.add?entityTypeId=2&fields[title]=once' }),
    ).rejects.toBeInstanceOf(AjaxError)
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('an expired token is refreshed once and the batch sent again', async () => {
    rig = await startFastRig()
    rig.emulator.expireAccessTokens()
    const result = await rig.portal.actions.v2.batch.make({ calls: [['server.time']] })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.refreshRequests()).toHaveLength(1)
    expect(rig.emulator.log.restRequests().map((entry) => entry.status)).toEqual([401, 200])
  })
})

describe('v2 batchByChunk', () => {
  it('120 commands: 3 requests of 50, 50 and 20, results merged in input order', async () => {
    rig = await startFastRig()
    const calls = Array.from(
      { length: 120 },
      (_, index) => ['crm.item.get', { entityTypeId: 2, id: index + 1 }] as const,
    )
    const result = await rig.portal.actions.v2.batchByChunk.make<{ item: { id: number } }>({
      calls,
      unchecked: true,
    })
    expect(result.isSuccess).toBe(true)
    expect(result.getData()?.map((entry) => entry?.item.id)).toEqual(
      Array.from({ length: 120 }, (_, i) => i + 1),
    )
    const bodies = batchBodies(rig)
    expect(bodies.map((body) => Object.keys(body.cmd).length)).toEqual([50, 50, 20])
    expect(Object.keys(bodies[1]?.cmd ?? {}).slice(0, 2)).toEqual(['50', '51'])
    expect(bodies[2]?.cmd['119']).toBe('crm.item.get?entityTypeId=2&id=120')
  })

  it('named commands keep their names across chunks', async () => {
    rig = await startFastRig()
    const calls = Object.fromEntries(
      Array.from({ length: 60 }, (_, index) => [
        `item${index + 1}`,
        ['crm.item.get', { entityTypeId: 2, id: index + 1 }] as const,
      ]),
    )
    const result = await rig.portal.actions.v2.batchByChunk.make<{ item: { id: number } }>({
      calls,
      unchecked: true,
    })
    const data = result.getData() ?? {}
    expect(Object.keys(data)).toEqual(Object.keys(calls))
    expect(data.item60?.item.id).toBe(60)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })

  it('under isHaltOnError a failed chunk ends the run; without it every chunk is sent', async () => {
    rig = await startFastRig()
    const calls = Array.from({ length: 120 }, (_, index) =>
      index === 60 ? (['no.such.method'] as const) : (['server.time'] as const),
    )
    const halted = await rig.portal.actions.v2.batchByChunk.make({
      calls,
      options: { returnAjaxResult: true },
      unchecked: true,
    })
    const entries = halted.getData() ?? []
    expect(halted.getErrorMessages()).toEqual(['command 60 (no.such.method): Method not found!'])
    expect(entries.slice(0, 60).every((entry) => entry.isSuccess)).toBe(true)
    expect(entries.slice(61).every((entry) => entry.hasError(SdkErrorCode.BatchCommandNotRun))).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)

    rig.emulator.log.clear()
    const going = await rig.portal.actions.v2.batchByChunk.make({
      calls,
      options: { isHaltOnError: false },
      unchecked: true,
    })
    expect(going.getErrors()).toHaveLength(1)
    expect(going.getData()?.filter((value) => value !== undefined)).toHaveLength(119)
    expect(rig.emulator.log.restRequests()).toHaveLength(3)
  })

  it('more than 50 in batch.make points to batchByChunk; batchByChunk takes them', async () => {
    rig = await startFastRig()
    const calls = Array.from({ length: 51 }, () => ['server.time'] as const)
    await expect(rig.portal.actions.v2.batch.make({ calls })).rejects.toThrow(/use batchByChunk/)
    const result = await rig.portal.actions.v2.batchByChunk.make({ calls })
    expect(result.getData()).toHaveLength(51)
  })
})
