import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { AjaxError, createNullLogger, PortalOAuth, SdkError } from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

const fastRetries = { restrictionParams: { retryDelay: 10 } }

describe('timeouts', () => {
  it('a read that times out is retried and succeeds', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.delayRequests(3_000, 1, { method: 'profile' })
    // Room for the repeat to be answered in time on a loaded machine (with 150 ms it timed out too, a third request).
    const result = await rig.portal.actions.v2.call.make({ method: 'profile', timeout: 1_000 })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests().filter((entry) => entry.restMethod === 'profile')).toHaveLength(2)
  })

  it('a *.add that times out is not sent twice: AjaxError REQUEST_TIMEOUT after one request', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.delayRequests(1_000, 1, { method: 'crm.item.add' })
    const error = await rig.portal.actions.v2.call
      .make({
        unchecked: true,
        method: 'crm.item.add',
        params: { entityTypeId: 2, fields: { title: 'x' } },
        timeout: 150,
        requestId: 'add-1',
      })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(AjaxError)
    expect(error).toBeInstanceOf(SdkError)
    expect(error).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      attempts: 1,
      request: { apiVersion: 'v2', method: 'crm.item.add', requestId: 'add-1' },
    })
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('retryOnNetworkError: true on the call retries a *.add anyway', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.delayRequests(1_000, 1, { method: 'crm.item.add' })
    const result = await rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Item' } },
      timeout: 150,
      retryOnNetworkError: true,
    })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })
})

describe('dropped connections', () => {
  it('a read whose connection is reset after the body was sent is retried', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.dropConnections(1, { method: 'profile', after: 'body' })
    const result = await rig.portal.actions.v2.call.make({ method: 'profile' })
    expect(result.isSuccess).toBe(true)
    const entries = rig.emulator.log.restRequests()
    expect(entries.map((entry) => entry.dropped ?? false)).toEqual([true, false])
  })

  it('a *.add whose connection is reset is not retried: AjaxError NETWORK_ERROR', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.dropConnections(1, { method: 'crm.item.add', after: 'body' })
    const error = await rig.portal.actions.v2.call
      .make({
        unchecked: true,
        method: 'crm.item.add',
        params: { entityTypeId: 2, fields: { title: 'Item' } },
      })
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ name: 'AjaxError', code: 'NETWORK_ERROR', attempts: 1 })
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('a v3 *.add with an Idempotency-Key is retried and created once', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.delayRequests(3_000, 1, { method: 'tasks.task.add' })
    const result = await rig.portal.actions.v3.call.make<{ item: { id: number } }>({
      unchecked: true,
      method: 'tasks.task.add',
      params: { fields: { title: 'once', creatorId: 1, responsibleId: 1 } },
      headers: { 'Idempotency-Key': 'task-once' },
      // Room for the repeat, as above.
      timeout: 1_000,
    })
    expect(result.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })

  it('a refused connection is always retried, then fails with NETWORK_ERROR', async () => {
    const port = await closedPort()
    rig = await startRig()
    const params = { ...rig.portal.auth.getParams(), clientEndpoint: `http://127.0.0.1:${port}/rest/` }
    const portal = new PortalOAuth(
      params,
      { clientId: rig.emulator.clientId, clientSecret: rig.emulator.clientSecret },
      { logger: createNullLogger(), restrictionParams: { retryDelay: 5, maxRetries: 2 } },
    )
    const error = await portal.actions.v2.call
      .make({ unchecked: true, method: 'crm.item.add', params: {} })
      .catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ name: 'AjaxError', code: 'NETWORK_ERROR', attempts: 3 })
    expect((error as Error).message).toContain('ECONNREFUSED')
    await portal.destroy()
  })
})

describe('cancellation', () => {
  it('an AbortSignal cancels a call waiting in the limiter; nothing reaches the portal', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 0.2 } } } })
    await rig.portal.actions.v2.call.make({ method: 'profile' })
    const controller = new AbortController()
    const waiting = rig.portal.actions.v2.call.make({ method: 'profile', signal: controller.signal })
    setTimeout(() => controller.abort(new Error('user left')), 30)
    await expect(waiting).rejects.toMatchObject({ name: 'AjaxError', code: 'REQUEST_ABORTED' })
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('an AbortSignal cancels a request in flight and its retries', async () => {
    rig = await startRig({ client: fastRetries })
    rig.emulator.delayRequests(2_000, 5, { method: 'profile' })
    const controller = new AbortController()
    const call = rig.portal.actions.v2.call.make({
      method: 'profile',
      signal: controller.signal,
      timeout: 5_000,
    })
    // Cancelled once the request is in flight (the emulator holds its answer for 2 s).
    while (rig.emulator.log.restRequests().length === 0)
      await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    const error = await call.catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ code: 'REQUEST_ABORTED' })
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })
})

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
