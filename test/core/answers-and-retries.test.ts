import { afterEach, describe, expect, it } from 'vitest'
import { AjaxError, type FetchLike, PortalOAuth, SdkError } from '../../src/index.js'
import { EmulatorRestError, type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { type Rig, startRig } from '../helpers.js'

// Which answers and failures are retried, and how each one reads as a result or an error.

let rig: Rig | undefined
let emulator: PortalEmulator | undefined
afterEach(async () => {
  await rig?.close()
  await emulator?.close()
  rig = undefined
  emulator = undefined
})

const fastRetries = { restrictionParams: { retryDelay: 10 } }

function sent(rig: Rig, method: string) {
  return rig.emulator.log.restRequests().filter((entry) => entry.restMethod === method)
}

describe('what is retried', () => {
  it('retryOnNetworkError: false on the instance: a read whose connection drops is not retried', async () => {
    rig = await startRig({ client: { restrictionParams: { retryDelay: 10, retryOnNetworkError: false } } })
    rig.emulator.dropConnections(1, { method: 'profile', after: 'body' })
    const error = await rig.portal.actions.v2.call
      .make({ method: 'profile' })
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ name: 'AjaxError', code: 'NETWORK_ERROR', attempts: 1 })
    expect(sent(rig, 'profile')).toHaveLength(1)
  })

  it('an Idempotency-Key makes a v3 write retryable whatever other headers come with it, a v2 write never', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.dropConnections(1, { method: 'tasks.task.add', after: 'body' })
    const v3 = await rig.portal.actions.v3.call.make({
      unchecked: true,
      method: 'tasks.task.add',
      params: { fields: { title: 'once', creatorId: 1, responsibleId: 1 } },
      headers: { 'x-trace': 'a', 'idempotency-key': 'task-1' },
    })
    expect(v3.isSuccess).toBe(true)
    expect(sent(rig, 'tasks.task.add')).toHaveLength(2)

    rig.emulator.dropConnections(1, { method: 'tasks.task.add', after: 'body' })
    const otherHeader = rig.portal.actions.v3.call.make({
      unchecked: true,
      method: 'tasks.task.add',
      params: { fields: { title: 'twice?', creatorId: 1, responsibleId: 1 } },
      headers: { 'x-trace': 'b' },
    })
    await expect(otherHeader).rejects.toMatchObject({ code: 'NETWORK_ERROR', attempts: 1 })

    rig.emulator.dropConnections(1, { method: 'crm.item.add', after: 'body' })
    const v2 = rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Item' } },
      headers: { 'Idempotency-Key': 'item-1' },
    })
    await expect(v2).rejects.toMatchObject({ code: 'NETWORK_ERROR', attempts: 1 })
    expect(sent(rig, 'crm.item.add')).toHaveLength(1)
  })

  it('a 503 other than QUERY_LIMIT_EXCEEDED and a 429 other than OPERATION_TIME_LIMIT are results, not retried', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.defineMethod('app.overload', () => {
      throw new EmulatorRestError('OVERLOAD_LIMIT', 'REST API is blocked due to overload.', 503)
    })
    rig.emulator.defineMethod('app.busy', () => {
      throw new EmulatorRestError('TOO_MANY_REQUESTS', 'Slow down', 429)
    })
    const overload = await rig.portal.actions.v2.call.make({ unchecked: true, method: 'app.overload' })
    expect(overload.getErrors().map((error) => [error.code, error.status])).toEqual([['OVERLOAD_LIMIT', 503]])
    const busy = await rig.portal.actions.v3.call.make({ unchecked: true, method: 'app.busy' })
    expect(busy.getErrors().map((error) => [error.code, error.status])).toEqual([['TOO_MANY_REQUESTS', 429]])
    expect(sent(rig, 'app.overload')).toHaveLength(1)
    expect(sent(rig, 'app.busy')).toHaveLength(1)
  })

  it('a token code with a status other than 401 is a result: no refresh, no second request', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.defineMethod('app.odd', () => {
      throw new EmulatorRestError('expired_token', 'The access token provided has expired.', 400)
    })
    const result = await rig.portal.actions.v2.call.make({ unchecked: true, method: 'app.odd' })
    expect(result.getErrors().map((error) => [error.code, error.status])).toEqual([['expired_token', 400]])
    expect(rig.emulator.log.refreshRequests()).toHaveLength(0)
    expect(sent(rig, 'app.odd')).toHaveLength(1)
  })

  it('QUERY_LIMIT_EXCEEDED is retried after retryDelay, not sooner', async () => {
    rig = await startRig({
      emulator: { rateLimit: { burstLimit: 1, drainRate: 1 } },
      client: { restrictionParams: { retryDelay: 700, rateLimit: { burstLimit: 5, drainRate: 50 } } },
    })
    const results = await Promise.all([
      rig.portal.actions.v2.call.make({ method: 'server.time' }),
      rig.portal.actions.v2.call.make({ method: 'profile' }),
    ])
    expect(results.every((result) => result.isSuccess)).toBe(true)
    const rejected = rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')
    expect(rejected.length).toBeGreaterThan(0)
    const retry = rig.emulator.log
      .restRequests()
      .find((entry) => entry.seq > rejected[0]!.seq && entry.restMethod === rejected[0]!.restMethod)
    expect(retry!.at - rejected[0]!.at).toBeGreaterThanOrEqual(650)
  })

  it('calls refused together come back spread out: each after its retryDelay, up to a quarter later', async () => {
    rig = await startRig({
      emulator: { rateLimit: { burstLimit: 1, drainRate: 1 } },
      client: {
        restrictionParams: {
          // Jitter of up to 250 ms: a pause of the test's process (a collection of a heap shared with the files before)
          // delays every timer due in it alike, and one of 100 ms gathered the retries of a 100 ms jitter.
          retryDelay: 1_000,
          maxRetries: 1,
          rateLimit: { burstLimit: 100, drainRate: 10_000 },
        },
      },
    })
    const calls = Array.from({ length: 16 }, (_, index) =>
      rig!.portal.actions.v2.call.make({ method: 'server.time', requestId: `call-${index}` }),
    )
    await Promise.all(calls)
    const entries = rig.emulator.log.restRequests()
    // Per refused call: how long after its 503 its retry arrived.
    const waits = rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED').flatMap((refused) => {
      const id = refused.headers['x-request-id']
      const retry = entries.find((entry) => entry.seq > refused.seq && entry.headers['x-request-id'] === id)
      return retry ? [retry.at - refused.at] : []
    })
    expect(waits.length).toBeGreaterThanOrEqual(10)
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(990)
    // Without jitter every retry waits the same 1 000 ms (the client's own bucket lets them all through at once).
    expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(50)
  })
})

describe('how a call reads', () => {
  it('a call without requestId has no requestId key in its query', async () => {
    rig = await startRig()
    const result = await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(result.getQuery()).toStrictEqual({ apiVersion: 'v2', method: 'profile', params: {} })
  })

  it('every request says it sends and accepts JSON; x-request-id only when a requestId is given', async () => {
    rig = await startRig()
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    await rig.portal.actions.v3.call.make({ method: 'tasks.task.list', requestId: 'r-1' })
    const [plain, labelled] = rig.emulator.log.restRequests()
    for (const entry of [plain, labelled]) {
      expect(entry?.headers.accept).toBe('application/json')
      expect(entry?.headers['content-type']).toBe('application/json')
      expect(entry?.headers['user-agent']).toMatch(/^portal-oauth\//)
    }
    expect(plain?.headers).not.toHaveProperty('x-request-id')
    expect(labelled?.headers['x-request-id']).toBe('r-1')
  })

  it('leading slashes of a method name are all dropped', async () => {
    rig = await startRig()
    const result = await rig.portal.actions.v3.call.make({ unchecked: true, method: '//tasks.task.list' })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests().map((entry) => entry.path)).toEqual(['/rest/api/tasks.task.list'])
  })

  it("the instance's timeout names itself in the error of a call that has none", async () => {
    rig = await startRig({ client: { httpOptions: { timeout: 150 } } })
    rig.emulator.delayRequests(1_000, 1, { method: 'crm.item.add' })
    const error = await rig.portal.actions.v2.call
      .make({
        unchecked: true,
        method: 'crm.item.add',
        params: { entityTypeId: 2, fields: { title: 'Item' } },
      })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(AjaxError)
    expect((error as AjaxError).message).toBe('v2 crm.item.add: no answer within 150 ms')
    expect((error as AjaxError).request).toStrictEqual({ apiVersion: 'v2', method: 'crm.item.add' })
  })

  it('a cancelled call keeps the reason given to abort() as its cause', async () => {
    rig = await startRig()
    rig.emulator.holdRequests(1, { method: 'profile' })
    const controller = new AbortController()
    const call = rig.portal.actions.v2.call.make({ method: 'profile', signal: controller.signal })
    await rig.emulator.waitForHeld(1)
    const reason = new Error('user left')
    controller.abort(reason)
    const error = await call.catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({
      code: 'REQUEST_ABORTED',
      message: "v2 profile: cancelled by the caller's signal",
    })
    expect((error as AjaxError).cause).toBe(reason)
    rig.emulator.releaseHeldRequests()
  })

  it('a refused connection says connection failed, with its code', async () => {
    emulator = await startPortalEmulator()
    const params = emulator.issueAuthParams()
    const closed = { ...params, clientEndpoint: 'http://127.0.0.1:9/rest/' }
    const portal = new PortalOAuth(
      closed,
      { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      { restrictionParams: { retryDelay: 10, maxRetries: 0 } },
    )
    try {
      const error = await portal.actions.v2.call
        .make({ method: 'profile' })
        .catch((thrown: unknown) => thrown)
      expect((error as AjaxError).message).toBe('v2 profile: connection failed (ECONNREFUSED)')
    } finally {
      await portal.destroy()
    }
  })
})

describe('httpOptions refused at construction', () => {
  it('not an object, an adapter that is not a function, connections out of range', async () => {
    emulator = await startPortalEmulator()
    const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
    const cases: [unknown, string][] = [
      ['fast', 'httpOptions must be an object; got string'],
      [{ adapter: 'undici' }, 'httpOptions.adapter must be a fetch-compatible function'],
      [{ connections: 0 }, 'httpOptions.connections must be an integer of at least 1, got 0'],
    ]
    for (const [httpOptions, message] of cases) {
      let caught: unknown
      try {
        new PortalOAuth(emulator.issueAuthParams(), credentials, { httpOptions: httpOptions as never })
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(SdkError)
      expect((caught as SdkError).message).toBe(message)
    }
  })
})

/**
 * Answers the portal does not give but a proxy in front of it, or a changed portal, may: the emulator only answers in
 * the portal's own shapes, so this adapter forwards every request to it and, for the methods named in `rewrite`,
 * replaces the answer with the given status and body text.
 */
function rewritingAdapter(rewrite: Record<string, { status: number; body: string }>): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init)
    const url = new URL(input instanceof Request ? input.url : String(input))
    const method = url.pathname.replace(/^\/rest\/(api\/)?/, '')
    const replacement = rewrite[method]
    if (!replacement) return response
    await response.arrayBuffer()
    return new Response(replacement.body === '' ? null : replacement.body, {
      status: replacement.status,
      headers: { 'content-type': 'application/json' },
    })
  }
}

describe('answers in odd shapes', () => {
  async function answers(rewrite: Record<string, { status: number; body: string }>) {
    rig = await startRig({
      client: {
        httpOptions: { adapter: rewritingAdapter(rewrite) },
        restrictionParams: { retryDelay: 10, maxRetries: 0 },
      },
    })
    return rig
  }

  it('an error status without a portal error becomes HTTP_<status>; an empty 200 is a null result', async () => {
    const { portal } = await answers({
      'app.gateway': { status: 502, body: '{"message":"bad gateway"}' },
      'app.empty': { status: 200, body: '' },
    })
    const gateway = await portal.actions.v2.call.make({ unchecked: true, method: 'app.gateway' })
    expect(gateway.isSuccess).toBe(false)
    expect(gateway.getErrors().map((error) => [error.code, error.message, error.status])).toEqual([
      ['HTTP_502', 'HTTP_502', 502],
    ])
    const empty = await portal.actions.v2.call.make({ unchecked: true, method: 'app.empty' })
    expect(empty.isSuccess).toBe(true)
    expect(empty.getData()?.result).toBeNull()
  })

  it('a 200 that carries an error is a failure', async () => {
    const { portal } = await answers({
      'app.half': { status: 200, body: '{"error":"ERROR_CORE","error_description":"half done"}' },
    })
    const result = await portal.actions.v2.call.make({ unchecked: true, method: 'app.half' })
    expect(result.isSuccess).toBe(false)
    expect(result.getErrors().map((error) => [error.code, error.message])).toEqual([
      ['ERROR_CORE', 'half done'],
    ])
  })

  it('a body that is not JSON is an INVALID_RESPONSE error naming the status', async () => {
    const { portal } = await answers({ 'app.html': { status: 502, body: '<html>Bad Gateway</html>' } })
    const error = await portal.actions.v2.call
      .make({ unchecked: true, method: 'app.html' })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(AjaxError)
    expect(error).toMatchObject({
      code: 'INVALID_RESPONSE',
      status: 502,
      message: 'v2 app.html: the portal answered HTTP 502 with a body that is not JSON',
    })
  })

  it('error bodies with missing or odd fields still give a code and a message', async () => {
    const { portal } = await answers({
      'app.v2-odd': { status: 400, body: '{"error":"ERROR_X","error_description":42}' },
      'app.numbered': { status: 400, body: '{"error":17}' },
      'app.v3-odd': {
        status: 400,
        body: JSON.stringify({
          error: {
            message: 7,
            validation: ['not an item', { field: 'title' }, { message: 'is required' }, null],
          },
        }),
      },
      'app.v3-plain': { status: 400, body: '{"error":{"code":"E","message":"m","validation":"none"}}' },
    })
    const read = async (method: string) =>
      (await portal.actions.v2.call.make({ unchecked: true, method }))
        .getErrors()
        .map((error) => [error.code, error.message, error.description])
    expect(await read('app.v2-odd')).toEqual([['ERROR_X', 'ERROR_X', '']])
    expect(await read('app.numbered')).toEqual([['17', '17', '']])
    expect(await read('app.v3-odd')).toEqual([
      ['ERROR', 'ERROR', ''],
      ['ERROR', 'title: ', 'title: '],
      ['ERROR', ': is required', ': is required'],
    ])
    expect(await read('app.v3-plain')).toEqual([['E', 'm', 'm']])
  })

  it('a success keeps next and total only as numbers, and time only as an object', async () => {
    const { portal } = await answers({
      'app.odd-page': { status: 200, body: '{"result":[1],"next":"50","total":"2","time":"soon"}' },
      'app.bare': { status: 200, body: '[1,2]' },
    })
    const page = await portal.actions.v2.call.make({ unchecked: true, method: 'app.odd-page' })
    expect(page.getData()).toStrictEqual({ result: [1] })
    const bare = await portal.actions.v2.call.make({ unchecked: true, method: 'app.bare' })
    expect(bare.getData()).toStrictEqual({ result: [1, 2] })
  })
})
