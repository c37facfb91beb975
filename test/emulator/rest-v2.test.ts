import { describe, expect, it } from 'vitest'
import { EmulatorListPage, EmulatorRestError } from '../../src/testing/index.js'
import { emulator, fakeClock, obj, postForm, postJson, request, rows, TIME_KEYS, v2 } from './helpers.js'

describe('REST v2 envelope and auth', () => {
  it('answers { result, time } with the full time block', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now })
    const { accessToken } = emu.issueAuthParams()
    const res = await request(`${emu.clientEndpoint}profile?auth=${accessToken}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(Object.keys(res.body)).toEqual(['result', 'time'])
    expect(res.body.result).toEqual({
      ID: '1',
      ADMIN: true,
      NAME: 'User 1',
      LAST_NAME: 'Emulated',
      PERSONAL_GENDER: '',
      TIME_ZONE: '',
    })
    const time = obj(res.body.time)
    expect(Object.keys(time)).toEqual(TIME_KEYS)
    expect(time.start).toBe(clock.now() / 1000)
    expect(time.date_start).toBe('2026-01-01T00:00:00+00:00')
    expect(time.operating_reset_at).toBe(clock.now() / 1000 + 600)
    expect(typeof time.operating).toBe('number')
    expect(Number(time.duration)).toBeGreaterThanOrEqual(0)
    emu.setAdmin(false)
    expect(obj((await v2(emu, 'profile', accessToken)).body.result).ADMIN).toBe(false)
  })

  it('takes the token from the bearer header, auth or access_token in query, form or JSON body', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const url = `${emu.clientEndpoint}user.current`
    expect((await request(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    expect((await request(`${url}?access_token=${token}`)).status).toBe(200)
    expect((await postForm(url, { auth: token })).status).toBe(200)
    expect((await postForm(url, { access_token: token })).status).toBe(200)
    expect((await postJson(url, { auth: token })).status).toBe(200)
    // the header wins over a wrong parameter
    const both = await request(`${url}?auth=wrong`, { headers: { authorization: `Bearer ${token}` } })
    expect(both.status).toBe(200)
    // a JSON body is only read as JSON with application/json
    const plain = await request(url, { method: 'POST', body: JSON.stringify({ auth: token }) })
    expect(plain.status).toBe(401)
    expect(emu.log.restRequests().map((entry) => entry.authVia)).toEqual([
      'bearer',
      'query',
      'body',
      'body',
      'body',
      'bearer',
      'none',
    ])
    expect(emu.log.entries[0]).toMatchObject({
      token,
      apiVersion: 'v2',
      restMethod: 'user.current',
      kind: 'rest',
    })
  })

  it('lower-cases the method and accepts .json', async () => {
    const emu = await emulator()
    const { accessToken } = emu.issueAuthParams()
    const res = await request(`${emu.clientEndpoint}Server.Time.json?auth=${accessToken}`)
    expect(res.status).toBe(200)
    expect(String(res.body.result)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/)
    expect(emu.log.entries[0]?.restMethod).toBe('server.time')
  })

  it('merges repeated slashes as the web server does: /rest//{method} and /rest/api//{method} are the method', async () => {
    const emu = await emulator()
    const { accessToken } = emu.issueAuthParams()
    const v2Answer = await request(`${emu.clientEndpoint}/server.time?auth=${accessToken}`)
    expect(v2Answer.status).toBe(200)
    const v3Answer = await postJson(`${emu.clientEndpoint}/api//tasks.task.list`, { auth: accessToken })
    expect(v3Answer.status).toBe(200)
    expect(emu.log.entries.map((entry) => [entry.apiVersion, entry.restMethod])).toEqual([
      ['v2', 'server.time'],
      ['v3', 'tasks.task.list'],
    ])
  })

  it('answers 404 before auth, then NO_AUTH_FOUND, expired_token and invalid_token', async () => {
    const clock = fakeClock()
    const emu = await emulator({ now: clock.now })
    const { accessToken } = emu.issueAuthParams()
    const notFound = await request(`${emu.clientEndpoint}no.such.method`)
    expect(notFound.status).toBe(404)
    expect(notFound.body).toEqual({ error: 'ERROR_METHOD_NOT_FOUND', error_description: 'Method not found!' })
    emu.defineMethod('app.v3.only', () => true, { versions: ['v3'] })
    const v3Only = await v2(emu, 'app.v3.only', accessToken, { id: 1 })
    expect(v3Only.status).toBe(404)
    const noAuth = await request(`${emu.clientEndpoint}profile`)
    expect(noAuth.status).toBe(401)
    expect(noAuth.body).toEqual({ error: 'NO_AUTH_FOUND', error_description: 'Wrong authorization data' })
    const invalid = await v2(emu, 'profile', 'f'.repeat(70))
    expect(invalid.status).toBe(401)
    expect(invalid.body).toEqual({
      error: 'invalid_token',
      error_description: 'Unable to get application by token',
    })
    clock.advance(3600_000)
    const expired = await v2(emu, 'profile', accessToken)
    expect(expired.status).toBe(401)
    expect(expired.body).toEqual({
      error: 'expired_token',
      error_description: 'The access token provided has expired',
    })
    expect(emu.log.rejected().map((entry) => entry.errorCode)).toEqual([
      'ERROR_METHOD_NOT_FOUND',
      'ERROR_METHOD_NOT_FOUND',
      'NO_AUTH_FOUND',
      'invalid_token',
      'expired_token',
    ])
  })

  it('expires every token issued so far with expireAccessTokens', async () => {
    const emu = await emulator()
    const a = emu.issueAuthParams()
    const b = emu.issueAuthParams()
    emu.expireAccessTokens()
    expect((await v2(emu, 'profile', a.accessToken)).body.error).toBe('expired_token')
    expect((await v2(emu, 'profile', b.accessToken)).body.error).toBe('expired_token')
    const c = emu.issueAuthParams()
    expect((await v2(emu, 'profile', c.accessToken)).status).toBe(200)
  })

  it('answers app.info, user.current and crm.item add/get/update', async () => {
    const emu = await emulator({ status: 'T', lists: { 'crm.item.list': 3 } })
    const { accessToken: token } = emu.issueAuthParams()
    expect((await v2(emu, 'app.info', token)).body.result).toEqual({
      ID: 1,
      CODE: emu.clientId,
      VERSION: 1,
      STATUS: 'T',
      INSTALLED: true,
      PAYMENT_EXPIRED: 'N',
      DAYS: null,
      LANGUAGE_ID: 'en',
      LICENSE: 'en_ent250',
      LICENSE_TYPE: 'ent250',
      LICENSE_FAMILY: 'ent',
    })
    expect(obj((await v2(emu, 'user.current', token)).body.result).ID).toBe('1')
    const added = await v2(emu, 'crm.item.add', token, {
      entityTypeId: 2,
      fields: { title: 'New deal', stageId: 'NEW' },
    })
    expect(added.body.result).toMatchObject({ item: { id: 4, title: 'New deal', stageId: 'NEW' } })
    const updated = await v2(emu, 'crm.item.update', token, {
      entityTypeId: 2,
      id: 2,
      fields: { title: 'Renamed' },
    })
    expect(updated.body.result).toMatchObject({ item: { id: 2, title: 'Renamed' } })
    expect((await v2(emu, 'crm.item.get', token, { entityTypeId: 2, id: 2 })).body.result).toMatchObject({
      item: { id: 2, title: 'Renamed' },
    })
    const missing = await v2(emu, 'crm.item.get', token, { entityTypeId: 2, id: 99 })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ error: 'NOT_FOUND', error_description: 'Element not found' })
    const list = await v2(emu, 'crm.item.list', token, { entityTypeId: 2 })
    expect(obj(list.body.result).items).toHaveLength(4)
    expect(list.body.total).toBe(4)
  })

  it('runs methods registered with defineMethod, including errors and list pages', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    emu.defineMethod('Custom.Echo', async (params, ctx) => ({ params, ctx }))
    emu.defineMethod('custom.fail', () => {
      throw new EmulatorRestError('ERROR_ARGUMENT', 'Bad argument', 422)
    })
    emu.defineMethod('custom.page', () => new EmulatorListPage([1, 2], { next: 2, total: 10 }), {
      versions: ['v2'],
    })
    emu.defineMethod('custom.crash', () => {
      throw new Error('boom')
    })
    const echo = await postJson(`${emu.clientEndpoint}custom.echo?x=1`, { auth: token, filter: { '>ID': 5 } })
    expect(echo.body.result).toEqual({
      params: { x: '1', filter: { '>ID': 5 } },
      ctx: { version: 'v2', userId: 1, isWebhook: false },
    })
    const fail = await v2(emu, 'custom.fail', token)
    expect(fail.status).toBe(422)
    expect(fail.body).toEqual({ error: 'ERROR_ARGUMENT', error_description: 'Bad argument' })
    const page = await v2(emu, 'custom.page', token)
    expect(Object.keys(page.body)).toEqual(['result', 'next', 'total', 'time'])
    expect(page.body).toMatchObject({ result: [1, 2], next: 2, total: 10 })
    const crash = await v2(emu, 'custom.crash', token)
    expect(crash.status).toBe(500)
    expect(crash.body).toEqual({ error: 'INTERNAL_SERVER_ERROR', error_description: 'boom' })
  })
})

describe('REST v2 list fixtures', () => {
  it('pages crm.contact.list by 50 with next and total', async () => {
    const emu = await emulator()
    const { accessToken: token } = emu.issueAuthParams()
    const first = await request(`${emu.clientEndpoint}crm.contact.list?auth=${token}`)
    expect(Object.keys(first.body)).toEqual(['result', 'next', 'total', 'time'])
    expect(first.body.next).toBe(50)
    expect(first.body.total).toBe(120)
    const firstRows = rows(first.body.result)
    expect(firstRows).toHaveLength(50)
    expect(firstRows[0]).toMatchObject({ ID: '1', NAME: 'Contact 1' })
    const last = await v2(emu, 'crm.contact.list', token, { start: 100 })
    expect(rows(last.body.result).map((row) => row.ID)).toEqual(
      Array.from({ length: 20 }, (_, i) => String(101 + i)),
    )
    expect(last.body.next).toBeUndefined()
    expect(last.body.total).toBe(120)
  })

  it('pages crm.deal.list by 50, and crm.deal.add / crm.contact.add answer the new integer id', async () => {
    const emu = await emulator({ lists: { 'crm.deal.list': 60 } })
    const { accessToken: token } = emu.issueAuthParams()
    const first = await v2(emu, 'crm.deal.list', token)
    expect(first.body.next).toBe(50)
    expect(first.body.total).toBe(60)
    expect(rows(first.body.result)[0]).toMatchObject({
      ID: '1',
      TITLE: 'Deal 1',
      STAGE_ID: 'NEW',
      CURRENCY_ID: 'USD',
    })
    const contact = await v2(emu, 'crm.contact.add', token, { fields: { NAME: 'Ann' } })
    expect(contact.body.result).toBe(121)
    const deal = await v2(emu, 'crm.deal.add', token, { fields: { TITLE: 'Big one', CONTACT_ID: '121' } })
    expect(deal.body.result).toBe(61)
    const added = await v2(emu, 'crm.deal.list', token, { filter: { '>ID': 60 } })
    expect(rows(added.body.result)).toMatchObject([{ ID: '61', TITLE: 'Big one', CONTACT_ID: '121' }])
  })

  it('supports start=-1 with a >ID filter and order: total 0, no next (huge-data.md shows `[total] => 0`)', async () => {
    const emu = await emulator({ lists: { 'crm.contact.list': 100_000 } })
    const { accessToken: token } = emu.issueAuthParams()
    const res = await v2(emu, 'crm.contact.list', token, {
      start: -1,
      order: { ID: 'ASC' },
      filter: { '>ID': 99_960 },
      select: ['ID'],
    })
    expect(res.body.total).toBe(0)
    expect(res.body.next).toBeUndefined()
    const got = rows(res.body.result)
    expect(got).toHaveLength(40)
    expect(got[0]?.ID).toBe('99961')
    const desc = await v2(emu, 'crm.contact.list', token, {
      start: -1,
      order: { ID: 'DESC' },
      filter: { '<ID': 10 },
    })
    expect(rows(desc.body.result).map((row) => row.ID)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1'])
    const range = await v2(emu, 'crm.contact.list', token, { filter: { '>=ID': 10, '<=ID': 12, '!ID': 11 } })
    expect(rows(range.body.result).map((row) => row.ID)).toEqual(['10', '12'])
    expect(range.body.total).toBe(2)
    const exact = await v2(emu, 'crm.contact.list', token, { filter: { ID: [5, 3, 7] } })
    expect(rows(exact.body.result).map((row) => row.ID)).toEqual(['3', '5', '7'])
  })

  it('answers crm.item.list as { items } with lower-case numeric ids, user.get as rows', async () => {
    const emu = await emulator({ lists: { 'crm.item.list': 60, 'user.get': 3 } })
    const { accessToken: token } = emu.issueAuthParams()
    const items = await postForm(
      `${emu.clientEndpoint}crm.item.list`,
      `auth=${token}&entityTypeId=2&order[id]=desc&filter[<id]=55&start=0`,
    )
    const list = rows(obj(items.body.result).items)
    expect(list).toHaveLength(50)
    expect(list[0]).toMatchObject({ id: 54, title: 'Item 54' })
    expect(items.body).toMatchObject({ next: 50, total: 54 })
    const users = await v2(emu, 'user.get', token, { FILTER: { '>ID': 1 } })
    expect(rows(users.body.result).map((row) => row.ID)).toEqual(['2', '3'])
    expect(users.body.total).toBe(2)
  })
})
