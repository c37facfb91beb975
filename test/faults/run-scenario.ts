import { setTimeout as sleep } from 'node:timers/promises'
import { PortalFleet, PortalOAuth, type PortalOAuthOptions, type PortalOAuthParams } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import type { Action, FaultScenario, Who } from './fault-scenario.js'
import { FaultyStore } from './faulty-store.js'

/** A call's own timeout, the refresh timeout and the fleet's timeout of a run, ms: short, so that a run is short. */
const TIMEOUT_MS = 400
/** The instances' options: every wait of theirs is bounded by something short. */
const CLIENT_OPTIONS = {
  refreshTimeout: TIMEOUT_MS,
  refreshRetries: 1,
  refreshRetryDelay: 20,
  // Long enough for the store to take a pair whose save under the lock failed before anyone else may refresh.
  lockTtl: 4 * TIMEOUT_MS,
  callbackTimeout: TIMEOUT_MS / 2,
} satisfies PortalOAuthOptions

/**
 * How long each kind of action may take, ms: generous sums of the waits it is made of, never "forever". A call: the
 * store's first look, the wait for a refresh, the slot, its request, and once more after a rejected token, each
 * within its timeout. A refresh: the store's first look, two attempts and the callback. An event: its store calls,
 * also those of earlier events queued before it. `destroy()`: the attempt in flight and the callback.
 */
const BOUND_MS: Record<Action['kind'], number> = {
  call: 8 * TIMEOUT_MS + 1_000,
  refresh: 6 * TIMEOUT_MS + 1_000,
  expire: 100,
  event: 12 * TIMEOUT_MS + 1_000,
  get: 4 * TIMEOUT_MS + 1_000,
  destroy: 4 * TIMEOUT_MS + 1_000,
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

/** `work`, or what it failed to do: a message when it did not settle within `ms`. */
async function settlesWithin(what: string, work: () => Promise<unknown>, ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${what} did not settle within ${ms} ms`), ms)
  })
  const settled = work().then(
    () => null,
    () => null,
  )
  return Promise.race([settled, late]).finally(() => clearTimeout(timer))
}

/** What a run works on. */
interface Run {
  emulator: PortalEmulator
  store: FaultyStore
  fleet: PortalFleet
  /** The two instances on the store, and a third one the checks may add. */
  instances: PortalOAuth[]
  destroyed: Set<Who>
  /** Builds an instance on `pair` with the run's store, clock and options. */
  instance(pair: PortalOAuthParams): PortalOAuth
}

/**
 * Runs `scenario` against the loopback emulator: a fleet that installed the portal, two instances on its pair, all on
 * one {@link FaultyStore}. Once the actions settled and the faults stopped, each live instance calls again, and the
 * store's pair is refreshed once more. Resolves to what went wrong: unhandled rejections, actions that did not settle
 * in time, a refresh token presented twice, a refresh refused, a store left with a spent or older pair.
 */
export async function runScenario(scenario: FaultScenario): Promise<string[]> {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason)
  }
  // Every pair gets its own `expires`: the clock of the emulator and the instances moves one second per action.
  let offset = 0
  const now = (): number => Date.now() + offset
  const emulator = await startPortalEmulator({ now })
  const store = new FaultyStore()
  const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
  const fleet = new PortalFleet({
    oAuthSecret: secret,
    store,
    httpOptions: { timeout: TIMEOUT_MS },
    logger: quiet,
  })
  const run: Run = {
    emulator,
    store,
    fleet,
    instances: [],
    destroyed: new Set(),
    instance: (pair) => new PortalOAuth(pair, secret, { store, logger: quiet, now, ...CLIENT_OPTIONS }),
  }
  process.on('unhandledRejection', onUnhandled)
  try {
    await fleet.handleEvent(emulator.installEvent('ONAPPINSTALL'))
    const pair = await store.inner.load(emulator.memberId)
    if (!pair) throw new Error('the install event stored no pair')
    run.instances.push(run.instance(pair), run.instance(pair))
    store.faults = scenario.faults.map((fault) => ({ ...fault }))
    const running: Array<Promise<string | null>> = []
    for (const [step, { action, gapMs }] of scenario.actions.entries()) {
      offset += 1_000
      const what = `action ${step} (${JSON.stringify(action)})`
      running.push(settlesWithin(what, () => start(run, action), BOUND_MS[action.kind]))
      await sleep(gapMs)
    }
    const problems = (await Promise.all(running)).filter((late) => late !== null)
    problems.push(...(await afterTheFaults(run)))
    // An unhandled rejection is reported once the turn it happened in is over.
    await sleep(20)
    for (const reason of unhandled) problems.push(`unhandled rejection: ${describe(reason)}`)
    if (problems.length > 0) problems.push(`faults that happened: ${JSON.stringify(store.injected)}`)
    return problems
  } finally {
    process.off('unhandledRejection', onUnhandled)
    await Promise.all(run.instances.map((portal) => portal.destroy()))
    await fleet.destroy()
    await emulator.close()
  }
}

/** Starts `action`; what it resolves to does not matter, only that it settles. */
function start(run: Run, action: Action): Promise<unknown> {
  switch (action.kind) {
    case 'call': {
      const { actions } = run.instances[action.who]!
      const options = { params: {}, requestId: 'x', timeout: TIMEOUT_MS }
      return action.api === 'v2'
        ? actions.v2.call.make({ method: 'profile', ...options })
        : actions.v3.call.make({ method: 'tasks.task.list', ...options })
    }
    case 'expire':
      run.emulator.expireAccessTokens()
      return Promise.resolve()
    case 'refresh':
      return run.instances[action.who]!.auth.refreshAuth()
    case 'event':
      return run.fleet.handleEvent(run.emulator.installEvent('ONAPPUPDATE'))
    case 'get':
      return run.fleet.get(run.emulator.memberId)
    case 'destroy':
      run.destroyed.add(action.who)
      return run.instances[action.who]!.destroy()
  }
}

/**
 * Once the faults stop: every live instance's calls succeed, the store holds a pair that was never spent and no older
 * than any live instance's, that pair refreshes once more, and no refresh token was presented twice.
 */
async function afterTheFaults(run: Run): Promise<string[]> {
  const { emulator, store } = run
  const { memberId } = emulator
  const problems: string[] = []
  // What the store answers late has landed, and a lock nobody will give back has expired.
  store.faults = []
  await sleep(store.lateMs + 50)
  await lockFree(store, memberId, 4 * CLIENT_OPTIONS.lockTtl)
  const live = run.instances.filter((_, index) => !run.destroyed.has(index as Who))
  // Each live instance calls twice, the second past the slots the first leased: it tells the store its pair.
  for (const pause of [60, 20]) {
    for (const portal of live) {
      const result = await portal.actions.v2.call
        .make({ method: 'profile', timeout: 4 * TIMEOUT_MS })
        .catch((error: unknown) => error)
      if (!(result as { isSuccess?: boolean }).isSuccess)
        problems.push(`a call after the faults failed: ${describe(result)}`)
    }
    await sleep(pause)
  }
  const spent = new Set(
    emulator.log
      .refreshRequests()
      .filter((entry) => entry.status === 200)
      .map((entry) => entry.token),
  )
  const stored = await store.inner.load(memberId)
  if (!stored) return [...problems, 'the store holds no pair']
  if (spent.has(stored.refreshToken)) problems.push('the store holds a pair whose refresh token was spent')
  if (live.some((portal) => stored.expires < portal.auth.getParams().expires))
    problems.push('the store holds an older pair than a live instance')
  // The pair still works: a live instance (or a new one on the store's pair) refreshes it once more.
  const last = live[0] ?? run.instance(stored)
  if (!live.includes(last)) run.instances.push(last)
  const refused = await last.auth.refreshAuth().then(
    () => null,
    (error: unknown) => error,
  )
  if (refused) problems.push(`a refresh after the faults failed: ${describe(refused)}`)
  else if ((await store.inner.load(memberId))?.refreshToken !== last.auth.getParams().refreshToken)
    problems.push('after a refresh the store holds another pair than the instance that refreshed')
  const presented = new Map<string | undefined, number>()
  for (const entry of emulator.log.refreshRequests())
    presented.set(entry.token, (presented.get(entry.token) ?? 0) + 1)
  const twice = [...presented.values()].filter((count) => count > 1).length
  if (twice > 0) problems.push(`${twice} refresh token(s) presented more than once`)
  const invalid = emulator.log.rejected('invalid_grant').length
  if (invalid > 0) problems.push(`${invalid} refresh request(s) refused with invalid_grant`)
  return problems
}

/** A rejection's reason as text: errors by their message, wherever they sit in it. */
function describe(reason: unknown): string {
  if (reason instanceof Error) return reason.message
  return JSON.stringify(reason, (_key, value: unknown) => (value instanceof Error ? value.message : value))
}

/** Waits until nobody holds the portal's lock in `store` (at most `ms`). */
async function lockFree(store: FaultyStore, memberId: string, ms: number): Promise<void> {
  const until = performance.now() + ms
  while (performance.now() < until) {
    const owner = await store.inner.lock(memberId, 1)
    if (owner) {
      await store.inner.unlock(memberId, owner)
      return
    }
    await sleep(25)
  }
}
