import { describe, expect, it } from 'vitest'
import { emulator, fakeClock, obj, postForm, postJson, request, rows, TIME_KEYS, v3 } from './helpers.js'

describe('REST v3', () => {
  it('answers { result, time } for tasks.task.get and validation / not-found errors in the v3 shape', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const res = await v3(emu, 'tasks.task.get', token, { id: 7 })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(['result', 'time'])
    expect(res.body.result).toMatchObject({ item: { id: 7, title: 'Task 7' } })
    expect(Object.keys(obj(res.body.time))).toEqual(TIME_KEYS)
    const selected = await v3(emu, 'tasks.task.get', token, { id: 7, select: ['id', 'nope'] })
    expect(selected.body.result).toEqual({ item: { id: 7 } })
    const missing = await v3(emu, 'tasks.task.get', token, {})
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({
      error: {
        code: 'BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION',
        // The docs' shape (tasks-task-add-rest-v3.md): the field's message only in `validation`.
        message: 'Error during request object validation',
        validation: [{ field: 'id', message: 'Required field `id` is not specified' }],
      },
    })
    const notFound = await v3(emu, 'tasks.task.get', token, { id: 100_000 })
    expect(notFound.status).toBe(400)
    expect(obj(notFound.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_ENTITYNOTFOUNDEXCEPTION')
    expect(emu.log.entries[0]).toMatchObject({ apiVersion: 'v3', restMethod: 'tasks.task.get', kind: 'rest' })
  })

  it('reads JSON only, and answers unknown methods with METHODNOTFOUNDEXCEPTION', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const form = await postForm(`${emu.clientEndpoint}api/tasks.task.get`, { auth: token, id: '1' })
    expect(form.status).toBe(400)
    expect(obj(form.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_INVALIDJSONEXCEPTION')
    const broken = await request(`${emu.clientEndpoint}api/tasks.task.get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":',
    })
    expect(obj(broken.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_INVALIDJSONEXCEPTION')
    // query parameters are not method parameters on v3 (only the token may come from there)
    const query = await request(`${emu.clientEndpoint}api/tasks.task.get?id=5&auth=${token}`)
    expect(query.status).toBe(400)
    expect(obj(query.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_VALIDATION_REQUESTVALIDATIONEXCEPTION')
    const unknown = await v3(emu, 'profile', token)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({
      error: { code: 'BITRIX_REST_V3_EXCEPTION_METHODNOTFOUNDEXCEPTION', message: 'Method not found!' },
    })
  })

  it('answers auth errors in the flat v2 shape and accepts a bearer header', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now })
    const { accessToken: token } = emu.issueAuthParams()
    const bearer = await postJson(
      `${emu.clientEndpoint}api/tasks.task.get`,
      { id: 1 },
      { authorization: `Bearer ${token}` },
    )
    expect(bearer.status).toBe(200)
    const none = await postJson(`${emu.clientEndpoint}api/tasks.task.get`, { id: 1 })
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ error: 'NO_AUTH_FOUND', error_description: 'Wrong authorization data' })
    clock.advance(3_600_000)
    const expired = await v3(emu, 'tasks.task.get', token, { id: 1 })
    expect(expired.status).toBe(401)
    expect(expired.body).toEqual({
      error: 'expired_token',
      error_description: 'The access token provided has expired',
    })
  })

  it('adds tasks and lists them with filter, order and pagination', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const added = await v3(emu, 'tasks.task.add', token, {
      fields: { title: 'Write tests', creatorId: 1, responsibleId: 1 },
    })
    expect(added.body.result).toEqual({ item: { id: 121 } })
    expect((await v3(emu, 'tasks.task.get', token, { id: 121 })).body.result).toEqual({
      item: { id: 121, title: 'Write tests', creatorId: 1, responsibleId: 1 },
    })
    const first = await v3(emu, 'tasks.task.list', token, {})
    expect(Object.keys(obj(first.body.result))).toEqual(['items'])
    expect(rows(obj(first.body.result).items)).toHaveLength(50)
    expect(first.body.total).toBeUndefined()
    const page = await v3(emu, 'tasks.task.list', token, {
      filter: [
        ['id', '>', 100],
        ['id', '<=', 110],
      ],
      order: { id: 'desc' },
      pagination: { page: 2, limit: 4 },
      select: ['id'],
    })
    expect(obj(page.body.result).items).toEqual([{ id: 106 }, { id: 105 }, { id: 104 }, { id: 103 }])
    const inList = await v3(emu, 'tasks.task.list', token, { filter: [['id', 'in', [3, 1]]] })
    expect(rows(obj(inList.body.result).items).map((row) => row.id)).toEqual([1, 3])
    // Any integer page is taken, a page below 1 is the first (the vendor's SDK asks for page 0); what is no integer,
    // and a limit of 0, is refused with the docs' message (tasks-task-list-rest-v3.md, "Pagination Errors").
    for (const first of [0, -1, 1, '1']) {
      const answer = await v3(emu, 'tasks.task.list', token, {
        pagination: { page: first, limit: 2 },
        select: ['id'],
      })
      expect(obj(answer.body.result).items, `page ${first}`).toEqual([{ id: 1 }, { id: 2 }])
    }
    for (const pagination of [
      { limit: 'abc' },
      { limit: 0 },
      { page: 1.5 },
      { offset: 'x' },
      { limit: 1001 },
    ]) {
      const refused = await v3(emu, 'tasks.task.list', token, { pagination })
      expect([refused.status, refused.body]).toEqual([
        400,
        {
          error: {
            code: 'BITRIX_REST_V3_EXCEPTION_INVALIDPAGINATIONEXCEPTION',
            message: `Unable to recognize the pagination parameter \`${JSON.stringify(pagination)}\``,
          },
        },
      ])
    }
    const badField = await v3(emu, 'tasks.task.list', token, { filter: [['nope', '=', 1]] })
    expect(obj(badField.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_UNKNOWNDTOPROPERTYEXCEPTION')
    const badOp = await v3(emu, 'tasks.task.list', token, { filter: [['id', 'like', 1]] })
    expect(obj(badOp.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_UNKNOWNFILTEROPERATOREXCEPTION')
  })

  it('reads main.eventlog.tail with a cursor', async () => {
    const emu = await emulator({ lists: { 'main.eventlog.tail': 120 } })
    const { accessToken: token } = emu.issueAuthParams()
    const asc = await v3(emu, 'main.eventlog.tail', token, {
      cursor: { field: 'id', value: 100, order: 'ASC', limit: 50 },
    })
    const ascIds = rows(obj(asc.body.result).items).map((row) => row.id)
    expect(ascIds).toEqual(Array.from({ length: 20 }, (_, i) => 101 + i))
    const desc = await v3(emu, 'main.eventlog.tail', token, { cursor: { value: 4, order: 'DESC' } })
    expect(rows(obj(desc.body.result).items).map((row) => row.id)).toEqual([3, 2, 1])
    const fresh = await v3(emu, 'main.eventlog.tail', token, {})
    expect(rows(obj(fresh.body.result).items)).toHaveLength(50)
  })

  it('replays successful answers per Idempotency-Key', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const url = `${emu.clientEndpoint}api/tasks.task.add`
    const body = { auth: token, fields: { title: 'Once', creatorId: 1, responsibleId: 1 } }
    const first = await postJson(url, body, { 'idempotency-key': 'key-1' })
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotency-key')).toBe('key-1')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await postJson(url, body, { 'idempotency-key': 'key-1' })
    expect(again.text).toBe(first.text)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('idempotency-key')).toBe('key-1')
    const other = await postJson(
      url,
      { ...body, fields: { ...body.fields, title: 'Twice' } },
      { 'idempotency-key': 'key-1' },
    )
    expect(other.status).toBe(422)
    expect(obj(other.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_IDEMPOTENCYKEYREUSEDEXCEPTION')
    expect(other.headers.get('idempotency-key')).toBe('key-1')
    // errors are not cached: the same key works once the request is valid
    const invalid = await postJson(url, { auth: token, fields: {} }, { 'idempotency-key': 'key-2' })
    expect(invalid.status).toBe(400)
    const valid = await postJson(
      url,
      { auth: token, fields: { title: 'Later', creatorId: 1, responsibleId: 1 } },
      { 'idempotency-key': 'key-2' },
    )
    expect(valid.status).toBe(200)
    expect(valid.body.result).toEqual({ item: { id: 122 } })
    const tooLong = await postJson(url, body, { 'idempotency-key': 'x'.repeat(256) })
    expect(obj(tooLong.body.error).code).toBe('BITRIX_REST_V3_EXCEPTION_INVALIDIDEMPOTENCYKEYEXCEPTION')
  })
})
