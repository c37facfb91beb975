import { tracingChannel } from 'node:diagnostics_channel'
import { afterEach, expect, it } from 'vitest'
import {
  type AjaxError,
  type CallTraceContext,
  type RefreshTraceContext,
  TracingChannelName,
} from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(() => rig?.close())

/** Subscribes to a tracing channel; records `<event> <snapshot of the context>`. */
function record<Context extends object>(name: string) {
  const seen: Array<{ event: string; context: Context }> = []
  const channel = tracingChannel<unknown, Context>(name)
  const on = (event: string) => (context: Context) => seen.push({ event, context: { ...context } })
  const handlers = {
    start: on('start'),
    end: on('end'),
    asyncStart: on('asyncStart'),
    asyncEnd: on('asyncEnd'),
    error: on('error'),
  }
  channel.subscribe(handlers)
  return { seen, stop: () => channel.unsubscribe(handlers) }
}

it("a call is traced on 'portal-oauth:call' in tracePromise's order, its context filled as it goes", async () => {
  rig = await startRig()
  const calls = record<CallTraceContext>(TracingChannelName.call)
  try {
    await rig.portal.actions.v2.call.make({ method: 'profile', requestId: 'abc' })
  } finally {
    calls.stop()
  }
  expect(calls.seen.map((item) => item.event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd'])
  expect(calls.seen[0]?.context).toEqual({
    callId: expect.any(Number),
    apiVersion: 'v2',
    method: 'profile',
    requestId: 'abc',
    memberId: rig.emulator.memberId,
  })
  const { port } = new URL(rig.emulator.clientEndpoint)
  expect(calls.seen[3]?.context).toMatchObject({
    serverAddress: '127.0.0.1',
    serverPort: Number(port),
    status: 200,
    isSuccess: true,
    attempts: 1,
  })
})

it("a failed call publishes 'error' with a description of the rejection; a refresh is traced on 'portal-oauth:refresh'", async () => {
  rig = await startRig()
  const calls = record<CallTraceContext>(TracingChannelName.call)
  const refreshes = record<RefreshTraceContext>(TracingChannelName.refresh)
  rig.emulator.delayRequests(2_000, 1)
  const rejection = await rig.portal.actions.v2.call
    .make({ method: 'profile', timeout: 50, retryOnNetworkError: false })
    .catch((error: unknown) => error)
  await rig.portal.auth.refreshAuth()
  calls.stop()
  refreshes.stop()
  expect(calls.seen.map((item) => item.event)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
  // The rejection read once, as plain data: never the error itself, whose getters a subscriber would run.
  const { name, code, message, status } = rejection as AjaxError
  expect(calls.seen[2]?.context.error).toEqual({ name, code, message, status })
  expect(refreshes.seen.map((item) => item.event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd'])
  expect(refreshes.seen[3]?.context).toEqual({
    generation: 0,
    memberId: rig.emulator.memberId,
    result: { generation: 1, expires: rig.portal.auth.getParams().expires },
  })
})
