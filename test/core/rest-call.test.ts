import { afterEach, describe, expect, it } from 'vitest'
import { AjaxResult } from '../../src/index.js'
import { EmulatorRestError } from '../../src/testing/index.js'
import { type Rig, startRig } from '../helpers.js'
import { expectNothingInUrl, rigSecrets } from '../url-checks.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

describe('REST calls on the wire', () => {
  it('v2: POST JSON to {clientEndpoint}{method}, token as auth in the body, nothing in the query', async () => {
    rig = await startRig()
    const params = rig.portal.auth.getAuthData()
    const result = await rig.portal.actions.v2.call.make<{ ID: string; ADMIN: boolean }>({
      unchecked: true,
      method: 'profile',
      params: { select: ['ID'] },
      requestId: 'who-am-i',
    })
    expect(result).toBeInstanceOf(AjaxResult)
    expect(result.isSuccess).toBe(true)
    expect(result.getData()?.result.ID).toBe('1')
    expect(result.getTime()).toMatchObject({
      operating: expect.any(Number),
      operating_reset_at: expect.any(Number),
    })
    const [entry] = rig.emulator.log.restRequests()
    expect(entry).toMatchObject({
      httpMethod: 'POST',
      path: '/rest/profile',
      apiVersion: 'v2',
      restMethod: 'profile',
      authVia: 'body',
      contentType: expect.stringContaining('application/json'),
      status: 200,
    })
    expect(entry?.body).toEqual({ select: ['ID'], auth: params !== false ? params.access_token : '' })
    expect(entry?.headers['x-request-id']).toBe('who-am-i')
    expectNothingInUrl([entry], rigSecrets(rig))
    expect(result.getQuery()).toEqual({
      apiVersion: 'v2',
      method: 'profile',
      params: { select: ['ID'] },
      requestId: 'who-am-i',
    })
  })

  it('v3: POST JSON to {clientEndpoint}api/{method} with single slashes', async () => {
    rig = await startRig()
    const added = await rig.portal.actions.v3.call.make<{ item: { id: number } }>({
      unchecked: true,
      method: '/tasks.task.add',
      params: { fields: { title: 'Write docs', creatorId: 1, responsibleId: 1 } },
    })
    expect(added.isSuccess).toBe(true)
    const id = added.getData()?.result.item.id
    const got = await rig.portal.actions.v3.call.make<{ item: { id: number; title: string } }>({
      unchecked: true,
      method: 'tasks.task.get',
      params: { id },
    })
    expect(got.getData()?.result.item).toMatchObject({ id, title: 'Write docs' })
    const paths = rig.emulator.log.restRequests().map((entry) => entry.path)
    expect(paths).toEqual(['/rest/api/tasks.task.add', '/rest/api/tasks.task.get'])
    for (const entry of rig.emulator.log.restRequests()) expect(entry.authVia).toBe('body')
    expectNothingInUrl(rig.emulator.log.restRequests(), rigSecrets(rig))
  })

  it('a REST-level error does not throw: isSuccess false with the portal messages and codes', async () => {
    rig = await startRig()
    const missing = await rig.portal.actions.v2.call.make({ unchecked: true, method: 'no.such.method' })
    expect(missing.isSuccess).toBe(false)
    expect(missing.getStatus()).toBe(404)
    expect(missing.getErrorMessages()).toEqual(['Method not found!'])
    expect(missing.getErrors().map((error) => [error.code, error.status])).toEqual([
      ['ERROR_METHOD_NOT_FOUND', 404],
    ])

    const invalid = await rig.portal.actions.v3.call.make({
      unchecked: true,
      method: 'tasks.task.get',
      params: {},
    })
    expect(invalid.isSuccess).toBe(false)
    expect(invalid.getErrors()[0]?.code).toMatch(/^BITRIX_REST_V3_EXCEPTION_/)
    expect(invalid.getErrorMessages().length).toBeGreaterThan(0)
  })

  it('a v3 error with validation messages: the main error, then one per message as field: message', async () => {
    rig = await startRig()
    rig.emulator.defineMethod('app.validate', () => {
      throw new EmulatorRestError('BITRIX_REST_V3_EXCEPTION_VALIDATION', 'Bad fields', 400, {
        validation: [
          { field: 'title', message: 'is required' },
          { field: 'deadline', message: 'is not a date' },
        ],
      })
    })
    const result = await rig.portal.actions.v3.call.make({ unchecked: true, method: 'app.validate' })
    expect(result.isSuccess).toBe(false)
    expect(
      result.getErrors().map((error) => [error.code, error.message, error.description, error.status]),
    ).toEqual([
      ['BITRIX_REST_V3_EXCEPTION_VALIDATION', 'Bad fields', 'Bad fields', 400],
      ['BITRIX_REST_V3_EXCEPTION_VALIDATION', 'title: is required', 'title: is required', 400],
      ['BITRIX_REST_V3_EXCEPTION_VALIDATION', 'deadline: is not a date', 'deadline: is not a date', 400],
    ])
  })

  it('a v2 error without a description: its code is the message, the description empty', async () => {
    rig = await startRig()
    rig.emulator.defineMethod('app.fail', () => {
      throw new EmulatorRestError('ERROR_CORE', '', 400)
    })
    const result = await rig.portal.actions.v2.call.make({ unchecked: true, method: 'app.fail' })
    expect(result.getErrors().map((error) => [error.code, error.message, error.description])).toEqual([
      ['ERROR_CORE', 'ERROR_CORE', ''],
    ])
  })

  it('a v2 page keeps next and total; an answer without them has neither', async () => {
    rig = await startRig({ emulator: { lists: { 'crm.contact.list': 120 } } })
    const page = await rig.portal.actions.v2.call.make({ method: 'crm.contact.list' })
    expect(page.getData()).toMatchObject({ next: 50, total: 120 })
    const profile = await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(profile.getData()).not.toHaveProperty('next')
    expect(profile.getData()).not.toHaveProperty('total')
    expect(profile.getData()?.time).toEqual(expect.objectContaining({ start: expect.any(Number) }))
  })

  it('bad call options fail before any request, naming the field', async () => {
    rig = await startRig()
    await expect(rig.portal.actions.v2.call.make({ unchecked: true, method: '' })).rejects.toThrow(
      /v2 call: method must be a REST method name/,
    )
    await expect(
      rig.portal.actions.v2.call.make({ unchecked: true, method: 'crm.item.list?x=1' }),
    ).rejects.toThrow(/method must be/)
    await expect(
      rig.portal.actions.v2.call.make({
        unchecked: true,
        method: 'profile',
        params: [] as unknown as Record<string, unknown>,
      }),
    ).rejects.toThrow(/v2 call: params must be a plain object, got an array/)
    await expect(
      rig.portal.actions.v3.call.make({ unchecked: true, method: 'profile', timeout: -1 }),
    ).rejects.toThrow(/v3 call: timeout/)
    const refusals: Array<[Promise<unknown>, string]> = [
      [
        rig.portal.actions.v2.call.make(null as never),
        'v2 call: options must be an object like { method, params }',
      ],
      [
        rig.portal.actions.v3.call.make({ method: 5 } as never),
        'v3 call: method must be a string, got number',
      ],
      [
        rig.portal.actions.v2.call.make({ method: 'profile', signal: {} as never }),
        'v2 call: signal must be an AbortSignal',
      ],
      [
        rig.portal.actions.v3.call.make({
          unchecked: true,
          method: 'profile',
          retryOnNetworkError: 'yes' as never,
        }),
        'v3 call: retryOnNetworkError must be a boolean, got string',
      ],
      [
        rig.portal.actions.v2.call.make({ method: 'profile', params: 'x' as never }),
        'v2 call: params must be a plain object, got string',
      ],
    ]
    for (const [call, message] of refusals) {
      await expect(call).rejects.toMatchObject({ code: 'JSSDK_INVALID_ARGUMENT', message })
    }
    await expect(
      rig.portal.actions.v3.call.make({ unchecked: true, method: 'profile', headers: { 'bad name': 'x' } }),
    ).rejects.toThrow(/^v3 call: headers/)
    // A leading slash and blanks around the name are dropped.
    expect((await rig.portal.actions.v2.call.make({ unchecked: true, method: ' /profile ' })).isSuccess).toBe(
      true,
    )
    expect(rig.emulator.log.restRequests().map((entry) => entry.path)).toEqual(['/rest/profile'])
    rig.emulator.log.clear()
    expect(rig.emulator.log.restRequests()).toHaveLength(0)
  })

  it('per-call headers reach the wire (v3 Idempotency-Key)', async () => {
    rig = await startRig()
    const first = await rig.portal.actions.v3.call.make<{ item: { id: number } }>({
      unchecked: true,
      method: 'tasks.task.add',
      params: { fields: { title: 'Once', creatorId: 1, responsibleId: 1 } },
      headers: { 'Idempotency-Key': 'create-once-1' },
    })
    const replay = await rig.portal.actions.v3.call.make<{ item: { id: number } }>({
      unchecked: true,
      method: 'tasks.task.add',
      params: { fields: { title: 'Once', creatorId: 1, responsibleId: 1 } },
      headers: { 'Idempotency-Key': 'create-once-1' },
    })
    expect(replay.getData()?.result.item.id).toBe(first.getData()?.result.item.id)
    expect(rig.emulator.log.restRequests().map((entry) => entry.headers['idempotency-key'])).toEqual([
      'create-once-1',
      'create-once-1',
    ])
  })

  it('initIsAdmin() on a profile answer without ADMIN, or without a result: isAdmin is false', async () => {
    rig = await startRig()
    for (const answer of [{ ID: '1' }, undefined]) {
      rig.emulator.defineMethod('profile', () => answer)
      await rig.portal.initIsAdmin()
      expect(rig.portal.auth.isAdmin).toBe(false)
    }
    expect(rig.emulator.log.restRequests().filter((entry) => entry.restMethod === 'profile')).toHaveLength(2)
  })

  it('initIsAdmin() calls profile once and makes isAdmin readable', async () => {
    rig = await startRig({ emulator: { isAdmin: false } })
    await Promise.all([rig.portal.initIsAdmin('admin-check'), rig.portal.initIsAdmin()])
    expect(rig.portal.auth.isAdmin).toBe(false)
    const calls = rig.emulator.log.restRequests().filter((entry) => entry.restMethod === 'profile')
    expect(calls).toHaveLength(1)
    expect(calls[0]?.headers['x-request-id']).toBe('admin-check')
  })
})
