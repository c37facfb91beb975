import { describe, expect, it } from 'vitest'
import { emulator, obj, postForm, postJson, request, rows, v2 } from './helpers.js'

const SUB_TIME_KEYS = ['start', 'finish', 'duration', 'processing', 'date_start', 'date_finish']

describe('v2 batch', () => {
  it('runs a cmd map with $result substitution, lifts total/next and renders empty maps as []', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const res = await v2(emu, 'batch', token, {
      halt: 0,
      cmd: {
        me: 'user.current',
        page: 'crm.contact.list?filter[>ID]=$result[me][ID]&select[0]=ID&start=0',
        next: 'crm.contact.list?filter[>ID]=$result[page][49][ID]&start=-1',
        one: 'crm.item.get?entityTypeId=2&id=$result[page][0][ID]',
      },
    })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(['result', 'time'])
    const result = obj(res.body.result)
    expect(Object.keys(result)).toEqual([
      'result',
      'result_error',
      'result_total',
      'result_next',
      'result_time',
    ])
    const results = obj(result.result)
    expect(obj(results.me).ID).toBe('1')
    expect(rows(results.page)[0]?.ID).toBe('2')
    expect(rows(results.next)[0]?.ID).toBe('52')
    expect(results.one).toMatchObject({ item: { id: 2, title: 'Item 2' } })
    expect(result.result_error).toEqual([])
    expect(result.result_total).toEqual({ page: 119, next: 0 })
    expect(result.result_next).toEqual({ page: 50 })
    const times = obj(result.result_time)
    expect(Object.keys(times)).toEqual(['me', 'page', 'next', 'one'])
    expect(Object.keys(obj(times.me))).toEqual(SUB_TIME_KEYS)
    expect(Object.keys(obj(res.body.time))).toContain('operating')
    expect(emu.log.restRequests()).toHaveLength(1)
    expect(emu.log.entries[0]).toMatchObject({ kind: 'batch', restMethod: 'batch', apiVersion: 'v2' })
  })

  it('keeps going after errors without halt and stops at the first error with halt', async () => {
    const emu = await emulator()
    emu.defineMethod('app.v3.only', () => true, { versions: ['v3'] })
    const { accessToken: token } = emu.issueAuthParams()
    const cmd = [
      'server.time',
      'no.such',
      'crm.item.get?entityTypeId=2&id=999',
      'profile',
      'batch',
      'app.v3.only?id=1',
    ]
    const free = await v2(emu, 'batch', token, { halt: false, cmd })
    const freeResult = obj(free.body.result)
    expect(Object.keys(obj(freeResult.result))).toEqual(['0', '3'])
    expect(freeResult.result_error).toEqual({
      1: { error: 'ERROR_METHOD_NOT_FOUND', error_description: 'Method not found!' },
      2: { error: 'NOT_FOUND', error_description: 'Element not found' },
      4: {
        error: 'ERROR_BATCH_METHOD_NOT_ALLOWED',
        error_description: 'Method is not allowed for batch usage',
      },
      5: { error: 'ERROR_METHOD_NOT_FOUND', error_description: 'Method not found!' },
    })
    expect(freeResult.result_total).toEqual([])
    expect(freeResult.result_next).toEqual([])
    const halted = await v2(emu, 'batch', token, { halt: 1, cmd })
    const haltedResult = obj(halted.body.result)
    // keys 0..n-1 serialise as JSON arrays, like PHP lists
    expect(Array.isArray(haltedResult.result)).toBe(true)
    expect(rows(haltedResult.result)).toHaveLength(1)
    expect(Object.keys(obj(haltedResult.result_error))).toEqual(['1'])
    const allFailed = await v2(emu, 'batch', token, { halt: 0, cmd: { x: 'no.such' } })
    expect(obj(allFailed.body.result).result).toEqual([])
    expect(obj(allFailed.body.result).result_time).toEqual([])
  })

  it('parses the form-encoded form with doubly encoded inner queries', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const body =
      `auth=${token}&halt=0` +
      '&cmd[me]=user.current' +
      '&cmd[list]=crm.contact.list%3Fstart%3D0%26filter%255B%253EID%255D%3D5' +
      '&cmd[add]=crm.item.add%3FentityTypeId%3D2%26fields%255Btitle%255D%3DJohn%2526Martin'
    const res = await postForm(`${emu.clientEndpoint}batch`, body)
    const results = obj(obj(res.body.result).result)
    expect(rows(results.list)[0]?.ID).toBe('6')
    expect(obj(results.add).item).toMatchObject({ id: 121, title: 'John&Martin' })
    // the same through the query string
    const viaQuery = await request(
      `${emu.clientEndpoint}batch?auth=${token}&cmd[0]=crm.item.get%3FentityTypeId%3D2%26id%3D121&cmd[1]=profile`,
    )
    const list = rows(obj(viaQuery.body.result).result)
    expect(list[0]).toMatchObject({ item: { id: 121, title: 'John&Martin' } })
  })

  it('runs 50 commands and answers ERROR_BATCH_LENGTH_EXCEEDED for each beyond (batch.md: "subqueries beyond the limit will end with an error")', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const cmd = Array.from({ length: 52 }, () => 'server.time')
    const res = await v2(emu, 'batch', token, { cmd })
    const result = obj(res.body.result)
    expect(rows(result.result)).toHaveLength(50)
    expect(result.result_error).toEqual({
      50: { error: 'ERROR_BATCH_LENGTH_EXCEEDED', error_description: 'Max batch length exceeded' },
      51: { error: 'ERROR_BATCH_LENGTH_EXCEEDED', error_description: 'Max batch length exceeded' },
    })
  })

  it('needs auth like any call', async () => {
    const emu = await emulator()
    const res = await postJson(`${emu.clientEndpoint}batch`, { cmd: { a: 'profile' } })
    expect(res.status).toBe(401)
    expect(res.body.error).toBe('NO_AUTH_FOUND')
  })
})

describe('v3 batch', () => {
  it('runs a root array with bearer auth, resolving $ref and $refArray', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const res = await postJson(
      `${emu.clientEndpoint}api/batch`,
      [
        {
          method: 'tasks.task.add',
          query: { fields: { title: 'Parent', creatorId: 1, responsibleId: 1 } },
          as: 'created',
        },
        { method: 'tasks.task.get', query: { id: { $ref: 'created.item.id' } }, as: 'got' },
        { method: 'tasks.task.list', query: { pagination: { limit: 3 } }, as: 'list' },
        {
          method: 'tasks.task.list',
          query: { filter: [['id', 'in', { $refArray: 'list.id' }]], order: { id: 'desc' } },
        },
      ],
      { authorization: `Bearer ${token}` },
    )
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(['result', 'time'])
    const results = rows(res.body.result)
    expect(results[0]).toEqual({ item: { id: 121 } })
    expect(results[1]).toMatchObject({ item: { id: 121, title: 'Parent', creatorId: 1, responsibleId: 1 } })
    expect(rows(obj(results[3]).items).map((row) => row.id)).toEqual([3, 2, 1])
    expect(emu.log.entries[0]).toMatchObject({ kind: 'batch', apiVersion: 'v3', authVia: 'bearer' })
  })

  it('accepts { auth, cmd: [...] } and the numeric-key object form', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const cmdForm = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      cmd: [{ method: 'tasks.task.get', query: { id: 1 } }],
    })
    expect(cmdForm.body.result).toMatchObject([{ item: { id: 1, title: 'Task 1' } }])
    const numeric = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      0: { method: 'tasks.task.get', query: { id: 2 } },
      1: { method: 'tasks.task.get', query: { id: 3 } },
    })
    expect(rows(numeric.body.result).map((item) => obj(item.item).id)).toEqual([2, 3])
    const viaQuery = await postJson(`${emu.clientEndpoint}api/batch?auth=${token}`, [
      { method: 'tasks.task.get', query: { id: 4 } },
    ])
    expect(viaQuery.status).toBe(200)
  })

  it('is all-or-nothing: the first failing command is the answer', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const failed = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      cmd: [
        { method: 'tasks.task.get', query: { id: 1 } },
        { method: 'tasks.task.get', query: {} },
        { method: 'tasks.task.get', query: { id: 2 } },
      ],
    })
    expect(failed.status).toBe(400)
    expect(failed.body.result).toBeUndefined()
    expect(obj(failed.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION')
    const unknown = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      cmd: [{ method: 'profile' }],
    })
    expect(unknown.status).toBe(404)
    const badRef = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      cmd: [{ method: 'tasks.task.get', query: { id: { $ref: 'nobody.item.id' } } }],
    })
    expect(obj(badRef.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_INVALIDSELECTEXCEPTION')
    const v2Style = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      cmd: { a: 'tasks.task.get?id=1' },
    })
    expect(obj(v2Style.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_INVALIDSELECTEXCEPTION')
    const tooLong = await postJson(`${emu.clientEndpoint}api/batch`, {
      auth: token,
      cmd: Array.from({ length: 51 }, () => ({ method: 'tasks.task.get', query: { id: 1 } })),
    })
    expect(tooLong.status).toBe(400)
  })
})
