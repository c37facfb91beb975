import { createHook } from 'node:async_hooks'
import diagnostics_channel from 'node:diagnostics_channel'
import { afterEach, describe, expect, it } from 'vitest'
import {
  DiagnosticsChannel,
  type FetchLike,
  type LimiterWaitMessage,
  MemoryStore,
  SdkErrorCode,
} from '../../src/index.js'
import { type Rig, startRig } from '../helpers.js'

let rig: Rig
afterEach(async () => {
  await rig?.close()
})

function burst(rigUnderTest: Rig, count: number, method = 'server.time') {
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      index % 2 === 0
        ? rigUnderTest.portal.actions.v2.call.make({ unchecked: true, method })
        : rigUnderTest.portal.actions.v3.call.make({ method: 'tasks.task.list' }),
    ),
  )
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A client and an emulator enforcing the same bucket, the client's requests through `adapter`, warmed up (the sockets
 * open, the limiter's queue loaded) so that a burst leaves at once, both buckets drained and the log cleared.
 */
async function warmedRig(
  bucket: { burstLimit: number; drainRate: number },
  adapter: FetchLike,
): Promise<Rig> {
  const warmed = await startRig({
    emulator: { rateLimit: bucket },
    client: { httpOptions: { adapter }, restrictionParams: { rateLimit: bucket } },
  })
  await burst(warmed, 3)
  await sleep(300)
  warmed.emulator.log.clear()
  return warmed
}
/** Timers that keep the process alive now (an unref'd timer is not listed). */
const liveNow = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length
/**
 * Timers that keep the process alive and last: those seen in two looks 150 ms apart. Short ones come and go between
 * the looks: bottleneck's queue yields with 0 ms timers while it runs a job, and the test runner reports a test's
 * state with a 100 ms timer. Tests compare with "at most as many as before": on a loaded machine a timer of an
 * earlier test may end meanwhile, while one the test left behind would make one more.
 */
async function liveTimers(): Promise<number> {
  const first = liveNow()
  await sleep(150)
  return Math.min(first, liveNow())
}

/**
 * Timers the client's code (its own and its libraries') created, refed or not, while `during` runs. A timer that does
 * not keep the process alive is invisible to {@link liveTimers}, yet one that re-arms itself every millisecond burns
 * CPU for as long as it runs: counting the timers created shows it (hundreds, against a few dozen for the operations
 * of a burst). A timer is told by the frame that called `setTimeout`: the test's own, the emulator's and the test
 * runner's are left out, so that a busy machine, where these run more often, does not change the count.
 */
async function timersCreated(during: () => Promise<unknown>): Promise<number> {
  let count = 0
  const limit = Error.stackTraceLimit
  const hook = createHook({
    init(_id, type) {
      if (type === 'Timeout' && createdByClient(new Error().stack ?? '')) count += 1
    },
  })
  Error.stackTraceLimit = 20
  hook.enable()
  try {
    await during()
  } finally {
    hook.disable()
    Error.stackTraceLimit = limit
  }
  return count
}

/** Whether the frame that called `setTimeout` in `stack` is the client's code or a library it runs. */
function createdByClient(stack: string): boolean {
  const frames = stack.split('\n')
  // The hook's own frame, then Node's timer internals, then the caller.
  const caller = frames.slice(frames.findIndex((frame) => frame.includes('node:timers')) + 1)[0]
  if (!caller) return false
  return !/\/test\/|\/src\/testing\/|\/node_modules\/(@vitest|vitest|tinypool|birpc)\//.test(caller)
}

describe('leaky bucket', () => {
  it('paces v2 and v3 together so that a portal enforcing the same bucket rejects nothing', async () => {
    const bucket = { burstLimit: 5, drainRate: 25 }
    rig = await startRig({
      emulator: { rateLimit: bucket },
      client: { restrictionParams: { rateLimit: bucket } },
    })
    const results = await burst(rig, 40)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    expect(rig.emulator.log.restRequests()).toHaveLength(40)
  })

  it('the drain clock of a burst starts once its requests have left, not when its slots were taken', async () => {
    // A burst takes all its slots in one turn of the event loop and leaves only after that turn has built every
    // request. Here the first request takes 100 ms to build, so a limiter that started draining when the slots
    // were taken would think a slot free by the time the burst leaves, and send the third call with it, into a
    // portal bucket that is still full.
    // Why an adapter: the emulator answers requests; what is needed here is the client's own CPU time between
    // taking its slots and sending, which no answer can produce. The adapter only burns that time once and
    // forwards every request to the emulator, which answers it.
    let slowNext = false
    const adapter: FetchLike = (input, init) => {
      if (slowNext) {
        slowNext = false
        const until = Date.now() + 100
        while (Date.now() < until) {}
      }
      return fetch(input, init)
    }
    rig = await warmedRig({ burstLimit: 2, drainRate: 20 }, adapter)
    slowNext = true
    const results = await burst(rig, 3)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    expect(rig.emulator.log.restRequests()).toHaveLength(3)
  })

  it('requests of a burst that reach the portal after a later one are counted when they arrive: no rejection', async () => {
    // The portal counts a request when it arrives. Some requests of a burst may arrive late (a connection being
    // opened, a slow route) while the first answer and the requests sent after it are quick. Here requests 2 to 5
    // of the burst spend 300 ms on their way; the adapter only holds them and forwards every request to the
    // emulator, which answers.
    let sent: number | null = null
    const adapter: FetchLike = async (input, init) => {
      if (sent !== null) {
        sent += 1
        if (sent >= 2 && sent <= 5) await sleep(300)
      }
      return fetch(input, init)
    }
    rig = await warmedRig({ burstLimit: 5, drainRate: 25 }, adapter)
    sent = 0
    const results = await burst(rig, 15)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    expect(rig.emulator.log.restRequests()).toHaveLength(15)
  })

  it('QUERY_LIMIT_EXCEEDED (503) is retried with backoff until the call succeeds', async () => {
    rig = await startRig({
      emulator: { rateLimit: { burstLimit: 4, drainRate: 20 } },
      client: {
        restrictionParams: { rateLimit: { burstLimit: 50, drainRate: 50 }, retryDelay: 50, maxRetries: 8 },
      },
    })
    const results = await burst(rig, 20)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    const rejected = rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')
    expect(rejected.length).toBeGreaterThan(0)
    expect(rejected.every((entry) => entry.status === 503)).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(20 + rejected.length)
  })

  it('after a 503 the client waits for its own bucket to drain before it retries (rateLimit.adaptiveEnabled)', async () => {
    // The client believes in a bucket of 20; the portal's holds 2 and drains 1 a second. After the first 503 the
    // client empties its bucket, so the retry waits for a slot (about 1 s) instead of hammering on backoff alone
    // (50, 100, 200, 400 ms: four more rejections).
    rig = await startRig({
      emulator: { rateLimit: { burstLimit: 2, drainRate: 1 } },
      client: {
        restrictionParams: { rateLimit: { burstLimit: 20, drainRate: 1 }, retryDelay: 50, maxRetries: 10 },
      },
    })
    const results = await burst(rig, 3)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED').length).toBeGreaterThan(0)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED').length).toBeLessThanOrEqual(2)
  })

  it('when 503 outlives maxRetries the call resolves with the error result, not a throw', async () => {
    rig = await startRig({
      emulator: { rateLimit: { burstLimit: 1, drainRate: 0.1 } },
      client: {
        restrictionParams: { rateLimit: { burstLimit: 50, drainRate: 50 }, retryDelay: 10, maxRetries: 2 },
      },
    })
    const [first, second] = await burst(rig, 2)
    expect(first?.isSuccess).toBe(true)
    expect(second?.isSuccess).toBe(false)
    expect(second?.getStatus()).toBe(503)
    expect(second?.getErrors()[0]).toMatchObject({
      code: 'QUERY_LIMIT_EXCEEDED',
      message: 'Too many requests',
    })
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(3)
  })

  it('a smaller burstLimit set at run time also caps the slots already free', async () => {
    // The client starts with a bucket of 10 against a portal's 2; after the change it holds 2 free slots, not 10.
    rig = await startRig({
      emulator: { rateLimit: { burstLimit: 2, drainRate: 2 } },
      client: { restrictionParams: { rateLimit: { burstLimit: 10, drainRate: 2 }, retryDelay: 10 } },
    })
    await rig.portal.actions.v2.call.make({ method: 'server.time' })
    // Both buckets drain the first call.
    await sleep(600)
    rig.portal.setRestrictionManagerParams({ rateLimit: { burstLimit: 2 } })
    const results = await burst(rig, 3)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    expect(rig.emulator.log.restRequests()).toHaveLength(4)
  })

  it('a smaller burstLimit set mid-burst keeps the requests already in the bucket: only the rest fit', async () => {
    // The portal holds 3 requests; with its limit lowered to 5, 2 more fit, not 5.
    const wide = { burstLimit: 10, drainRate: 1 }
    rig = await startRig({
      emulator: { rateLimit: wide },
      client: { restrictionParams: { rateLimit: wide, retryDelay: 10 } },
    })
    await burst(rig, 3)
    const narrow = { burstLimit: 5, drainRate: 1 }
    rig.emulator.setRateLimit(narrow)
    rig.portal.setRestrictionManagerParams({ rateLimit: narrow })
    const results = await burst(rig, 3)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
  })

  it('a larger burstLimit set at run time frees the new slots at once, as the portal does', async () => {
    const waits: LimiterWaitMessage[] = []
    const listener = (message: unknown) => waits.push(message as LimiterWaitMessage)
    diagnostics_channel.subscribe(DiagnosticsChannel.limiterWait, listener)
    try {
      rig = await startRig({
        emulator: { rateLimit: { burstLimit: 8, drainRate: 1 } },
        client: { restrictionParams: { rateLimit: { burstLimit: 4, drainRate: 1 } } },
      })
      await burst(rig, 2)
      rig.portal.setRestrictionManagerParams({ rateLimit: { burstLimit: 8, drainRate: 1 } })
      // 2 of 8 are in the bucket: 6 more fit without waiting.
      const results = await burst(rig, 6)
      expect(results.every((result) => result.isSuccess)).toBe(true)
      expect(waits).toEqual([])
      expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    } finally {
      diagnostics_channel.unsubscribe(DiagnosticsChannel.limiterWait, listener)
    }
  })

  it('a faster drainRate set while the bucket drains does not count the time already drained at the new rate', async () => {
    const slow = { burstLimit: 10, drainRate: 1 }
    rig = await startRig({
      emulator: { rateLimit: slow },
      client: { restrictionParams: { rateLimit: slow, retryDelay: 10 } },
    })
    await burst(rig, 10)
    // A little over one slot drains at 1 a second; then both buckets drain 50 a second from the level they have.
    await sleep(1_100)
    const fast = { burstLimit: 10, drainRate: 50 }
    rig.emulator.setRateLimit(fast)
    rig.portal.setRestrictionManagerParams({ rateLimit: fast })
    const results = await burst(rig, 10)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
  })

  it('changing settings while the bucket drains does not refill it', async () => {
    const bucket = { burstLimit: 2, drainRate: 2 }
    rig = await startRig({
      emulator: { rateLimit: bucket },
      client: { restrictionParams: { rateLimit: bucket, retryDelay: 10 } },
    })
    await burst(rig, 2)
    rig.portal.setRestrictionManagerParams({ retryDelay: 20 })
    const results = await burst(rig, 2)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
    const arrivals = rig.emulator.log.restRequests().map((entry) => entry.at)
    // One slot drains every 510 ms (the portal's 500 ms and the client's 2 % margin).
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(500)
  })

  it('a burst whose first request gets no answer still drains, from 1 s after its first slot', async () => {
    // Without an answer the client cannot know when the portal counted the request; it starts the drain clock
    // 1 s after the slot was taken, so the call waiting behind it is sent then and not never.
    rig = await startRig({
      client: {
        restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 20 }, retryOnNetworkError: false },
      },
    })
    rig.emulator.dropConnections(1, { method: 'server.time' })
    // The first slot is taken after this instant; its request may reach the emulator later on a loaded machine.
    const madeAt = Date.now()
    const [failed, waited] = await Promise.allSettled([
      rig.portal.actions.v2.call.make({ method: 'server.time' }),
      rig.portal.actions.v2.call.make({ method: 'profile' }),
    ])
    expect(failed.status).toBe('rejected')
    expect(waited).toMatchObject({ status: 'fulfilled', value: { isSuccess: true } })
    const [dropped, sent] = rig.emulator.log.restRequests()
    expect(dropped?.dropped).toBe(true)
    expect(sent!.at - madeAt).toBeGreaterThanOrEqual(1_000)
  })

  it('once its queue is empty, a call that finds a free slot is not counted as waiting for the limiter', async () => {
    const waits: LimiterWaitMessage[] = []
    const listener = (message: unknown) => waits.push(message as LimiterWaitMessage)
    diagnostics_channel.subscribe(DiagnosticsChannel.limiterWait, listener)
    try {
      rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 2, drainRate: 20 } } } })
      await burst(rig, 4)
      expect(waits.length).toBeGreaterThan(0)
      // The bucket is full again after 110 ms.
      await sleep(200)
      waits.length = 0
      await rig.portal.actions.v2.call.make({ method: 'server.time' })
      expect(waits).toEqual([])
    } finally {
      diagnostics_channel.unsubscribe(DiagnosticsChannel.limiterWait, listener)
    }
  })

  it('setRestrictionManagerParams() changes pacing at run time', async () => {
    rig = await startRig({ emulator: { rateLimit: { burstLimit: 4, drainRate: 40 } } })
    rig.portal.setRestrictionManagerParams({ rateLimit: { burstLimit: 4, drainRate: 40 }, retryDelay: 10 })
    const results = await burst(rig, 24)
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
  })
})

describe('timers of the bucket', () => {
  const slowBucket = { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 2 } } }
  const calls = (count: number, signal?: AbortSignal) =>
    Array.from({ length: count }, () =>
      rig.portal.actions.v2.call.make({ method: 'server.time', ...(signal ? { signal } : {}) }),
    )

  it('a call waiting for a slot keeps the process alive; an idle instance holds no timer that does', async () => {
    rig = await startRig({ client: slowBucket })
    await rig.portal.actions.v2.call.make({ method: 'server.time' })
    await sleep(600)
    const idle = await liveTimers()
    const started = calls(3)
    await started[0]
    // Two calls wait for the next slots (510 ms apart), and nothing else is pending.
    expect(await liveTimers()).toBeGreaterThan(idle)
    await Promise.all(started)
    expect(await liveTimers()).toBeLessThanOrEqual(idle)
  })

  it('waiting calls wake once per drained slot, not in a busy loop; an idle instance creates no timer', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 5 } } } })
    // Three calls wait 200 ms a slot. The timers of their requests, the queue and the slots come to about 40; a
    // wake-up timer that re-armed itself at once would add one per millisecond of the 600 ms.
    expect(await timersCreated(() => Promise.all(calls(4)))).toBeLessThan(80)
    await sleep(300)
    // The bucket is full again: nothing is scheduled but the 300 ms sleep of this test.
    expect(await timersCreated(() => sleep(300))).toBeLessThanOrEqual(2)
  })

  it('calls queued behind a burst whose first answer is late wait without a busy loop', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 5 } } } })
    // The drain clock starts at the first answer: for 300 ms there is no slot time to wake up at.
    rig.emulator.delayRequests(300, 1)
    expect(await timersCreated(() => Promise.all(calls(3)))).toBeLessThan(80)
  })

  it('a bucket draining with nobody waiting wakes nothing up', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 4, drainRate: 10 } } } })
    await Promise.all(calls(4))
    // The four slots drain over the next 400 ms; the level is brought up to date when a call asks, not by a timer.
    expect(await timersCreated(() => sleep(500))).toBeLessThanOrEqual(2)
  })

  it('a call waiting on a slow bucket goes at the new rate once a faster drainRate is set', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 0.01 } } } })
    const [first, second] = calls(2)
    await first
    // At 0.01 a second the second call would wait 100 s, past the test's timeout.
    rig.portal.setRestrictionManagerParams({ rateLimit: { burstLimit: 1, drainRate: 50 } })
    expect((await second)?.isSuccess).toBe(true)
  })

  it('calls that gave up waiting do not keep the process alive while their slots drain', async () => {
    rig = await startRig({ client: slowBucket })
    // Two calls, the second of which waits: the limiter's queue is loaded before the calls below queue in it.
    await Promise.all(calls(2))
    await sleep(600)
    const idle = await liveTimers()
    const controller = new AbortController()
    const [first] = calls(1)
    const abandoned = calls(2, controller.signal)
    await first
    controller.abort(new Error('not needed any more'))
    const outcomes = await Promise.allSettled(abandoned)
    expect(outcomes).toMatchObject([
      { status: 'rejected', reason: { code: SdkErrorCode.RequestAborted } },
      { status: 'rejected', reason: { code: SdkErrorCode.RequestAborted } },
    ])
    // The timer armed while they waited ends at the next slot; from then on, while the two slots they queued for
    // drain one after the other with nobody waiting for them, nothing keeps the process alive.
    while ((await liveTimers()) > idle) {}
    for (let looked = 0; looked < 14; looked += 1) expect(await liveTimers()).toBeLessThanOrEqual(idle)
    expect((await calls(1)[0])?.isSuccess).toBe(true)
    expect(rig.emulator.log.restRequests()).toHaveLength(4)
  })

  it('destroy() rejects the calls waiting for a slot, sends none of them and leaves no timer', async () => {
    rig = await startRig({ client: slowBucket })
    await rig.portal.actions.v2.call.make({ method: 'server.time' })
    await sleep(600)
    const idle = await liveTimers()
    const started = calls(3)
    await started[0]
    const settled = Promise.allSettled(started.slice(1))
    await rig.portal.destroy()
    const outcomes = await settled
    expect(outcomes).toMatchObject([
      { status: 'rejected', reason: { code: SdkErrorCode.Destroyed } },
      { status: 'rejected', reason: { code: SdkErrorCode.Destroyed } },
    ])
    expect(await liveTimers()).toBeLessThanOrEqual(idle)
    // Nor one that does not keep the process alive: after destroy() the instance schedules nothing at all.
    expect(await timersCreated(() => sleep(600))).toBeLessThanOrEqual(2)
    expect(rig.emulator.log.restRequests()).toHaveLength(2)
  })
})

describe('destroy() and a slot far off', () => {
  it('the calls waiting for a slot 100 s away reject at once, and nothing is left to fire', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 0.01 } } } })
    const idle = await liveTimers()
    const first = rig.portal.actions.v2.call.make({ method: 'server.time' })
    const waiting = Array.from({ length: 2 }, () => rig.portal.actions.v2.call.make({ method: 'profile' }))
    const settled = Promise.allSettled(waiting)
    expect((await first).isSuccess).toBe(true)
    await rig.portal.destroy()
    // Without destroy() ending their wait, these would settle only when their slots drain, 100 and 200 s from now.
    expect(await settled).toMatchObject([
      { status: 'rejected', reason: { code: SdkErrorCode.Destroyed } },
      { status: 'rejected', reason: { code: SdkErrorCode.Destroyed } },
    ])
    expect(await liveTimers()).toBeLessThanOrEqual(idle)
    expect(await timersCreated(() => sleep(300))).toBeLessThanOrEqual(2)
    expect(rig.emulator.log.restRequests().map((entry) => entry.restMethod)).toEqual(['server.time'])
  })
})

describe('operating limit', () => {
  it('OPERATION_TIME_LIMIT (429) waits for the reset and then succeeds', async () => {
    rig = await startRig({
      emulator: { operatingLimit: { windowMs: 1_000, limitMs: 100 }, methodCost: { 'crm.item.add': 60 } },
      client: {
        restrictionParams: {
          adaptiveConfig: { enabled: false, maxDelay: 3_000 },
          retryDelay: 100,
          maxRetries: 5,
        },
      },
    })
    const results = []
    for (let index = 0; index < 4; index += 1) {
      results.push(
        await rig.portal.actions.v2.call.make({
          unchecked: true,
          method: 'crm.item.add',
          params: { entityTypeId: 2, fields: { title: `${index}` } },
        }),
      )
    }
    expect(results.map((result) => result.isSuccess)).toEqual([true, true, true, true])
    expect(rig.emulator.log.rejected('OPERATION_TIME_LIMIT').length).toBeGreaterThan(0)
    // Other methods were never blocked.
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
  })

  it('after a 429 the method waits for the reset the portal reported: one rejection, not one per quick retry', async () => {
    rig = await startRig({
      emulator: { operatingLimit: { windowMs: 1_000, limitMs: 100 }, methodCost: { 'crm.item.add': 60 } },
      client: {
        restrictionParams: {
          adaptiveConfig: { enabled: false, maxDelay: 3_000 },
          // Retries of their own would come back after 10, 20, 40 ... ms: well before the reset.
          retryDelay: 10,
          maxRetries: 8,
        },
      },
    })
    for (let index = 0; index < 3; index += 1) {
      const result = await rig.portal.actions.v2.call.make({
        unchecked: true,
        method: 'crm.item.add',
        params: { entityTypeId: 2, fields: { title: 'Item' } },
      })
      expect(result.isSuccess).toBe(true)
    }
    expect(rig.emulator.log.rejected('OPERATION_TIME_LIMIT')).toHaveLength(1)
  })

  /** A client whose methods turn heavy at 1 % of a 1 s budget, with no adaptive delay. */
  const heavyAtOnePercent = (windowMs: number) => ({
    restrictionParams: {
      operatingLimit: { windowMs, limitMs: 1_000, heavyPercent: 1 },
      adaptiveConfig: { enabled: false },
    },
  })
  const addThree = (rig: Rig) =>
    Promise.all(
      [1, 2, 3].map((index) =>
        rig.portal.actions.v2.call.make({
          unchecked: true,
          method: 'crm.item.add',
          params: { entityTypeId: 2, fields: { title: `${index}` } },
        }),
      ),
    )

  it('a method past heavyPercent of its budget runs one call at a time; other methods do not wait', async () => {
    rig = await startRig({
      emulator: {
        operatingLimit: { windowMs: 600_000, limitMs: 100_000 },
        methodCost: { 'crm.item.add': 20 },
      },
      client: heavyAtOnePercent(600_000),
    })
    await rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Item' } },
    })
    rig.emulator.log.clear()
    // Each of the next three is held 150 ms by the portal: one at a time, each arrives after the last answer.
    rig.emulator.delayRequests(150, 3, { method: 'crm.item.add' })
    const [results, profile] = await Promise.all([
      addThree(rig),
      rig.portal.actions.v2.call.make({ method: 'profile' }),
    ])
    expect(results.every((result) => result.isSuccess)).toBe(true)
    expect(profile.isSuccess).toBe(true)
    const arrivals = rig.emulator.log
      .restRequests()
      .filter((entry) => entry.restMethod === 'crm.item.add')
      .map((entry) => entry.at)
    expect(arrivals).toHaveLength(3)
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(140)
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(140)
  })

  it('a use reported without operating_reset_at stops counting one windowMs later', async () => {
    rig = await startRig({
      emulator: {
        operatingLimit: { windowMs: 300, limitMs: 100_000, sendsResetAt: false },
        methodCost: { 'crm.item.add': 20 },
      },
      client: heavyAtOnePercent(300),
    })
    const first = await rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Item' } },
    })
    expect(first.getTime()?.operating).toBeGreaterThan(0)
    expect(first.getTime()).not.toHaveProperty('operating_reset_at')
    await sleep(400)
    // Heavy no more: all three are in flight at once (a client still holding the old use would send one and wait).
    rig.emulator.holdRequests(3, { method: 'crm.item.add' })
    const results = addThree(rig)
    await rig.emulator.waitForHeld(3)
    rig.emulator.releaseHeldRequests()
    expect((await results).every((result) => result.isSuccess)).toBe(true)
  })

  it('adaptiveConfig switched on at run time delays the next call by operating time x coefficient', async () => {
    rig = await startRig({
      emulator: {
        operatingLimit: { windowMs: 600_000, limitMs: 100_000 },
        methodCost: { 'crm.item.add': 200 },
      },
      client: {
        restrictionParams: {
          operatingLimit: { windowMs: 600_000, limitMs: 100_000 },
          adaptiveConfig: { enabled: false },
        },
      },
    })
    const add = () =>
      rig.portal.actions.v2.call.make({
        unchecked: true,
        method: 'crm.item.add',
        params: { entityTypeId: 2, fields: { title: 'Item' } },
      })
    expect((await add()).getTime()?.operating).toBeGreaterThanOrEqual(0.2)
    // 200 ms used is past 0 % of the budget: the next call waits 200 ms x 2, well under maxDelay.
    rig.portal.setRestrictionManagerParams({
      adaptiveConfig: { enabled: true, thresholdPercent: 0, coefficient: 2, maxDelay: 120_000 },
    })
    const before = Date.now()
    expect((await add()).isSuccess).toBe(true)
    const [, second] = rig.emulator.log.restRequests()
    expect(second!.at - before).toBeGreaterThanOrEqual(390)
  })

  it('an adaptive delay is waited out before a slot is taken, with the own bucket and with a shared one', async () => {
    const waits: LimiterWaitMessage[] = []
    const listener = (message: unknown) => waits.push(message as LimiterWaitMessage)
    diagnostics_channel.subscribe(DiagnosticsChannel.limiterWait, listener)
    try {
      for (const store of [undefined, new MemoryStore()]) {
        // A bucket of one slot per 500 ms on the own bucket (the slot comes after the delay); room to spare on the
        // shared one (the 400 ms can only be the delay).
        const limits = {
          operatingLimit: { windowMs: 600_000, limitMs: 100_000 },
          rateLimit: store ? { burstLimit: 20, drainRate: 20 } : { burstLimit: 1, drainRate: 2 },
        }
        rig = await startRig({
          emulator: { ...limits, methodCost: { 'crm.item.add': 200 } },
          client: {
            ...(store ? { store } : {}),
            restrictionParams: {
              ...limits,
              adaptiveConfig: { enabled: true, thresholdPercent: 0, coefficient: 2, maxDelay: 120_000 },
              retryDelay: 10,
            },
          },
        })
        const add = () =>
          rig.portal.actions.v2.call.make({
            unchecked: true,
            method: 'crm.item.add',
            params: { entityTypeId: 2, fields: { title: 'Item' } },
          })
        await add()
        waits.length = 0
        // 200 ms used: each next call waits 400 ms, then for its slot.
        const before = Date.now()
        const results = await Promise.all([add(), add()])
        expect(results.every((result) => result.isSuccess)).toBe(true)
        expect(rig.emulator.log.rejected('QUERY_LIMIT_EXCEEDED')).toHaveLength(0)
        expect(rig.emulator.log.restRequests()[1]!.at - before).toBeGreaterThanOrEqual(390)
        // The own bucket says the wait was the method's operating time; the shared one, the rate (it waits both).
        expect(new Set(waits.map((wait) => wait.reason))).toEqual(new Set([store ? 'rate' : 'operating']))
        await rig.close()
      }
    } finally {
      diagnostics_channel.unsubscribe(DiagnosticsChannel.limiterWait, listener)
    }
  })

  it('destroy() while a call waits out its adaptive delay: the call rejects as destroyed, sends nothing, holds no timer', async () => {
    const before = await liveTimers()
    rig = await startRig({
      emulator: {
        operatingLimit: { windowMs: 600_000, limitMs: 100_000 },
        methodCost: { 'crm.item.add': 200 },
      },
      client: {
        restrictionParams: {
          operatingLimit: { windowMs: 600_000, limitMs: 100_000 },
          // 200 ms used x 50: the second call waits 10 s before it may be sent.
          adaptiveConfig: { enabled: true, thresholdPercent: 0, coefficient: 50, maxDelay: 120_000 },
        },
      },
    })
    const add = () =>
      rig.portal.actions.v2.call.make({
        unchecked: true,
        method: 'crm.item.add',
        params: { entityTypeId: 2, fields: { title: 'Item' } },
      })
    await add()
    const waiting = expect(add()).rejects.toMatchObject({ code: SdkErrorCode.Destroyed })
    await sleep(50)
    await rig.portal.destroy()
    // At most as many as before: a timer of an earlier test may end meanwhile; the 10 s delay's would be one more.
    expect(await liveTimers()).toBeLessThanOrEqual(before)
    await waiting
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })

  it('a reset further away than maxDelay returns the error result at once', async () => {
    rig = await startRig({
      emulator: { operatingLimit: { windowMs: 600_000, limitMs: 100 }, methodCost: { 'crm.item.add': 200 } },
      client: { restrictionParams: { adaptiveConfig: { maxDelay: 50 }, retryDelay: 10 } },
    })
    const first = await rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Item' } },
    })
    expect(first.getTime()?.operating).toBeGreaterThanOrEqual(0.2)
    const blocked = await rig.portal.actions.v2.call.make({
      unchecked: true,
      method: 'crm.item.add',
      params: { entityTypeId: 2, fields: { title: 'Item' } },
    })
    expect(blocked.isSuccess).toBe(false)
    expect(blocked.getStatus()).toBe(429)
    expect(blocked.getErrors()[0]?.code).toBe('OPERATION_TIME_LIMIT')
    expect(blocked.getErrorMessages()).toEqual(['Method is blocked due to operation time limit.'])
    expect(rig.emulator.log.rejected('OPERATION_TIME_LIMIT')).toHaveLength(1)
  })
})

describe('the token a queued call carries', () => {
  it('16 calls queued behind the bucket while the portal expires the tokens twice: every call succeeds', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 2, drainRate: 4 } } } })
    const { emulator } = rig
    const calls = burst(rig, 16, 'profile')
    // The queued calls took their token before this expiry; they must leave with the one current when they go.
    emulator.expireAccessTokens()
    await expect.poll(() => emulator.log.refreshRequests().length, { timeout: 10_000 }).toBe(1)
    await expect
      .poll(() => emulator.log.restRequests().filter((entry) => entry.status === 200).length, {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(2)
    emulator.expireAccessTokens()
    const results = await calls
    expect(results.filter((result) => !result.isSuccess).map((result) => result.getErrorMessages())).toEqual(
      [],
    )
    expect(emulator.log.refreshRequests()).toHaveLength(2)
  })
})

describe("a call's timeout is its deadline, the wait for a slot included", () => {
  it('calls that get no slot of the bucket within their timeout fail with REQUEST_TIMEOUT and are never sent', async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 4, drainRate: 2 } } } })
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, () => rig.portal.actions.v2.call.make({ method: 'profile', timeout: 1000 })),
    )
    const sent = outcomes.filter((outcome) => outcome.status === 'fulfilled')
    const late = outcomes.filter((outcome) => outcome.status === 'rejected')
    // 4 at once and 2 a second: the rest cannot have a slot within 1 s.
    expect(sent.length).toBeGreaterThanOrEqual(4)
    expect(late.length).toBeGreaterThanOrEqual(12 - 4 - 3)
    for (const outcome of late) {
      expect(outcome.reason).toMatchObject({
        code: SdkErrorCode.RequestTimeout,
        attempts: 0,
        message: expect.stringContaining('nothing was sent'),
      })
    }
    expect(rig.emulator.log.restRequests()).toHaveLength(sent.length)
  })

  it("the caller's own signal still ends the wait as a cancellation, not a timeout", async () => {
    rig = await startRig({ client: { restrictionParams: { rateLimit: { burstLimit: 1, drainRate: 0.1 } } } })
    expect((await rig.portal.actions.v2.call.make({ method: 'profile' })).isSuccess).toBe(true)
    const controller = new AbortController()
    const waiting = rig.portal.actions.v2.call.make({
      method: 'profile',
      signal: controller.signal,
      timeout: 60_000,
    })
    controller.abort(new Error('user left'))
    await expect(waiting).rejects.toMatchObject({ code: SdkErrorCode.RequestAborted })
    expect(rig.emulator.log.restRequests()).toHaveLength(1)
  })
})
