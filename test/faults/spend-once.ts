import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { PortalFleet, PortalOAuth, type PortalOAuthOptions, type PortalOAuthParams } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { CutOffStore } from './cut-off-store.js'
import { MARK_METHODS, STORE_METHODS, type StoreMethod } from './faulty-store.js'
import { presentedTokens } from './presented-tokens.js'
import { type ScheduledFault, type ScheduledFaultKind, ScheduledStore } from './scheduled-store.js'

/** Which of the two instances on the store an action uses. */
export type Who = 0 | 1

/** How much time a pause lets pass while the scheduler lets nothing through. */
export type PauseLength = 'short' | 'attempt' | 'lock'

/** One thing the application does, or time passing. */
export type SpendAction =
  | { kind: 'call'; who: Who; api: 'v2' | 'v3' }
  | { kind: 'expire' }
  | { kind: 'refresh'; who: Who }
  | { kind: 'event' }
  | { kind: 'get' }
  | { kind: 'destroy'; who: Who }
  | { kind: 'pause'; length: PauseLength }

/**
 * One instance cut off from the store (every call of its own fails, as a process whose connection a failover closed)
 * when action `at` starts, for {@link CUT_OFF_MS}: longer than the lock lasts, shorter than the spending mark.
 */
export interface CutOff {
  at: number
  who: Who
}

/** A run: the actions, started in order, the store's faults, the retries, and the scheduler that orders it all. */
export interface SpendScenario {
  actions: SpendAction[]
  faults: ScheduledFault[]
  /**
   * By request to the OAuth server, in the order they come: whether the scheduler may let its answer through (false:
   * it comes {@link OAUTH_ANSWER_MS} after the request, past the refresh timeout). Requests past the list: true.
   */
  oauthScheduled: boolean[]
  refreshRetries: 0 | 1
  scheduler: fc.Scheduler
  /** Faults of the calls that renew the lock and mark the refresh token, besides {@link faults}. */
  markFaults: ScheduledFault[]
  cutOffs: CutOff[]
}

/** The refresh timeout of the instances, ms. */
export const REFRESH_TIMEOUT_MS = 300
/** The instances' lock TTL, ms. */
export const LOCK_TTL_MS = 2_000
/**
 * The longest the OAuth server takes to answer a token request, ms: an OAuth server slower than the lock allows is
 * out of reach of any lock (the holder's request may be processed after another holder's). A request is sent within
 * the refresh timeout of taking the lock and answered within this; the lock then lasts a second more, room for the
 * new pair's save and three more after it (one every 250 ms) while the store fails.
 */
export const OAUTH_ANSWER_MS = 700

/** The longest a refresh's attempts last with one retry, ms: two timeouts and the delay between them. */
const ATTEMPTS_MS = 2 * REFRESH_TIMEOUT_MS + 20 + 50

/** How long a `cutOff` lasts, ms: past the lock's TTL, within the spending mark's (four TTLs). */
const CUT_OFF_MS = 2 * LOCK_TTL_MS

const PAUSE_MS: Record<PauseLength, number> = {
  short: 60,
  attempt: REFRESH_TIMEOUT_MS + 50,
  lock: LOCK_TTL_MS + 50,
}

/** The instances' options: every wait of theirs is bounded by something short. */
function clientOptions(refreshRetries: number): PortalOAuthOptions {
  return {
    refreshTimeout: REFRESH_TIMEOUT_MS,
    refreshRetries,
    refreshRetryDelay: 20,
    lockTtl: LOCK_TTL_MS,
    callbackTimeout: REFRESH_TIMEOUT_MS / 2,
  }
}

/** A call's own timeout, and the fleet's, ms. */
const CALL_TIMEOUT_MS = 2 * REFRESH_TIMEOUT_MS

const who = fc.constantFrom<Who>(0, 1)

/** Refreshes, calls and pauses most often: a refresh request in flight when its attempt times out is the case to find. */
const action: fc.Arbitrary<SpendAction> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('call' as const), who, api: fc.constantFrom('v2', 'v3') }),
    weight: 4,
  },
  { arbitrary: fc.constant({ kind: 'expire' as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('refresh' as const), who }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'event' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'get' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('destroy' as const), who }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('pause' as const),
      length: fc.constantFrom<PauseLength>('short', 'attempt', 'attempt', 'lock'),
    }),
    weight: 4,
  },
)

const kind = fc.constantFrom<ScheduledFaultKind>(
  'reject',
  'throw',
  'hang',
  'hang',
  'lost',
  'silent',
  'thenable',
)

/** The methods a refresh under the lock calls, named more often than the others. */
const method = fc.oneof(
  { arbitrary: fc.constantFrom<StoreMethod>('save', 'lock', 'unlock', 'load'), weight: 3 },
  { arbitrary: fc.constantFrom(...STORE_METHODS.filter((name) => name !== 'close')), weight: 1 },
)

/** A fault at one of the first calls of the store, or at one of the first calls of one method. */
const fault: fc.Arbitrary<ScheduledFault> = fc.oneof(fc.record({ nth: fc.nat({ max: 30 }), kind }), {
  arbitrary: fc.record({ method, nth: fc.nat({ max: 3 }), kind }),
  weight: 2,
})

/**
 * Up to 14 actions, up to three faults (a store that fails every save and every renewal of the lock until the spending
 * mark ends leaves a refreshed pair only to the callback: out of reach of any lock), no retry or one, and the scheduler.
 */
export const spendScenario: fc.Arbitrary<SpendScenario> = fc.record({
  actions: fc.array(action, { minLength: 3, maxLength: 14 }),
  faults: fc.array(fault, { maxLength: 3 }),
  oauthScheduled: fc.array(fc.boolean(), { maxLength: 8 }),
  refreshRetries: fc.constantFrom<0 | 1>(0, 1),
  scheduler: fc.scheduler(),
  // Drawn last: the scenarios drawn before these existed (replayed by seed and path) stay the same.
  markFaults: fc.array(
    fc.record({ method: fc.constantFrom<StoreMethod>(...MARK_METHODS), nth: fc.nat({ max: 3 }), kind }),
    {
      maxLength: 2,
    },
  ),
  cutOffs: fc.array(fc.record({ at: fc.nat({ max: 13 }), who }), { maxLength: 1 }),
})

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

/** What a run works on. */
interface Run {
  emulator: PortalEmulator
  store: ScheduledStore
  /** Each instance's own view of the store, which `cutOff` cuts off. */
  views: CutOffStore[]
  /** The timers that end the cut-offs. */
  timers: Set<NodeJS.Timeout>
  fleet: PortalFleet
  instances: PortalOAuth[]
  destroyed: Set<Who>
  instance(pair: PortalOAuthParams): PortalOAuth
  /** The clock of the emulator and the instances moves a second per action: each pair expires later. */
  advance(): void
}

/** Hold every request to the OAuth server (token requests, `app.info`) until the scheduler lets it go. */
const HOLD_ALL = 1e9

/**
 * Runs `scenario` against the loopback emulator: a fleet that installed the portal and two instances on its pair, all
 * on one {@link ScheduledStore}. The scheduler decides, one step at a time, which comes next: the next action, one
 * answer of the store, the OAuth server's answer to the requests it holds; a pause lets real time pass while it lets
 * nothing through (timeouts fire, the lock expires). Between two steps the run waits until nothing moves without the
 * scheduler. Resolves to what went wrong: a refresh token presented twice, a refresh refused, unhandled rejections,
 * actions that never settled, and, once the faults stopped, a failing call or a store left with a spent or older pair.
 */
export async function runSpendScenario(scenario: SpendScenario): Promise<string[]> {
  const { scheduler: s } = scenario
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason)
  }
  let offset = 0
  const now = (): number => Date.now() + offset
  const emulator = await startPortalEmulator({ now })
  const store = new ScheduledStore()
  const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
  const fleet = new PortalFleet({
    oAuthSecret: secret,
    store,
    httpOptions: { timeout: CALL_TIMEOUT_MS },
    logger: quiet,
  })
  const options = clientOptions(scenario.refreshRetries)
  const run: Run = {
    emulator,
    store,
    fleet,
    instances: [],
    destroyed: new Set(),
    views: [],
    timers: new Set(),
    instance: (pair) => {
      const view = new CutOffStore(store)
      run.views.push(view)
      return new PortalOAuth(pair, secret, { store: view, logger: quiet, now, ...options })
    },
    advance: () => {
      offset += 1_000
    },
  }
  const releaseTimers = new Set<NodeJS.Timeout>()
  process.on('unhandledRejection', onUnhandled)
  try {
    // The first requests of a process are slow (modules load, nothing is compiled yet): the install is asked again
    // when it runs out of the fleet's short timeout.
    for (let attempt = 1; ; attempt += 1) {
      const installed = await fleet.handleEvent(emulator.installEvent('ONAPPINSTALL')).then(
        () => true,
        (error: unknown) => {
          if (attempt === 3) throw error
          return false
        },
      )
      if (installed) break
    }
    const pair = await store.inner.load(emulator.memberId)
    if (!pair) throw new Error('the install event stored no pair')
    run.instances.push(run.instance(pair), run.instance(pair))
    // Both instances have had their first look at the store before it goes wrong.
    for (const portal of run.instances) await portal.actions.v2.call.make({ method: 'profile' })
    store.faults = [...scenario.faults, ...scenario.markFaults].map((planned) => ({ ...planned }))
    store.scheduler = s
    emulator.holdRequests(HOLD_ALL, { server: 'oauth' })

    // The OAuth server answers what it holds when the scheduler says so, or OAUTH_ANSWER_MS after it came at the latest.
    const releaseHeld = (): void => {
      emulator.releaseHeldRequests()
      if (store.scheduler) emulator.holdRequests(HOLD_ALL, { server: 'oauth' })
    }
    // The requests made before the faults were answered already.
    const seen = new Set(emulator.log.entries.map((entry) => entry.seq))
    let held = 0
    const watchHeld = (): void => {
      for (const entry of emulator.log.entries) {
        if (entry.server !== 'oauth' || seen.has(entry.seq)) continue
        seen.add(entry.seq)
        if (scenario.oauthScheduled[held] ?? true)
          void s.schedule(Promise.resolve(), `OAuth server answers (${entry.path})`).then(releaseHeld)
        held += 1
        const timer = setTimeout(() => {
          releaseTimers.delete(timer)
          releaseHeld()
        }, OAUTH_ANSWER_MS)
        releaseTimers.add(timer)
      }
    }

    // The actions start in order, each when the scheduler lets it; the next one is scheduled as one starts.
    const pending = new Set<Promise<unknown>>()
    let started = 0
    let pauseMs = 0
    const startFrom = (index: number): void => {
      const next = scenario.actions[index]
      if (!next) return
      void s.schedule(Promise.resolve(), `action ${index}: ${JSON.stringify(next)}`).then(() => {
        started += 1
        for (const cut of scenario.cutOffs) if (cut.at === index) cutOff(run, cut.who)
        if (next.kind === 'pause') pauseMs = PAUSE_MS[next.length]
        else {
          run.advance()
          const outcome: Promise<unknown> = start(run, next)
            .catch(() => undefined)
            .finally(() => pending.delete(outcome))
          pending.add(outcome)
        }
        startFrom(index + 1)
      })
    }
    startFrom(0)

    const problems: string[] = []
    const deadline = performance.now() + 60_000
    for (;;) {
      await stillness(run, s)
      watchHeld()
      if (s.count() > 0) {
        await s.waitNext(1)
        if (pauseMs > 0) {
          const ms = pauseMs
          pauseMs = 0
          await sleep(ms)
        }
        continue
      }
      if (started === scenario.actions.length && pending.size === 0) break
      if (performance.now() > deadline) {
        problems.push('the actions did not settle within 60 s')
        break
      }
      // Nothing for the scheduler to let through: only timers move things now.
      await sleep(20)
    }
    problems.push(...(await afterTheFaults(run, s, releaseTimers)))
    await sleep(20)
    for (const reason of unhandled) problems.push(`unhandled rejection: ${describe(reason)}`)
    if (problems.length > 0) problems.push(`faults that happened: ${JSON.stringify(store.injected)}`)
    return problems
  } finally {
    process.off('unhandledRejection', onUnhandled)
    for (const timer of [...releaseTimers, ...run.timers]) clearTimeout(timer)
    store.scheduler = null
    emulator.releaseHeldRequests()
    await Promise.all(run.instances.map((portal) => portal.destroy()))
    await fleet.destroy()
    await emulator.close()
  }
}

/**
 * Waits until nothing moves without the scheduler: the scheduler's tasks, the emulator's log and the requests it is
 * answering stay the same for a few turns of the event loop.
 */
async function stillness(run: Run, s: fc.Scheduler): Promise<void> {
  let last = ''
  // A second at most: a request the emulator never finishes (its client went away while it read the body) is not
  // waited for.
  for (let same = 0, turns = 0; same < 3 && turns < 500; turns += 1) {
    await sleep(2)
    const entries = run.emulator.log.entries
    const busy = entries.filter(
      (entry) => entry.status === 0 && entry.server === 'portal' && !entry.dropped && !entry.clientClosed,
    ).length
    const key = `${s.count()}/${entries.length}/${busy}`
    same = key === last && busy === 0 ? same + 1 : 0
    last = key
  }
}

/**
 * Cuts instance `who` off from the store for {@link CUT_OFF_MS}; not once it is destroyed (a process that exits while
 * cut off takes a pair the store never got with it: out of reach of any lock).
 */
function cutOff(run: Run, who: Who): void {
  if (run.destroyed.has(who)) return
  const view = run.views[who]!
  view.cutOff = 'all'
  const timer = setTimeout(() => {
    view.cutOff = new Set()
  }, CUT_OFF_MS)
  run.timers.add(timer)
}

/** Starts `action`; what it resolves to does not matter. */
function start(run: Run, action: Exclude<SpendAction, { kind: 'pause' }>): Promise<unknown> {
  switch (action.kind) {
    case 'call': {
      const { actions } = run.instances[action.who]!
      const options = { params: {}, requestId: 'x', timeout: CALL_TIMEOUT_MS }
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
      // A process that exits while cut off takes a pair the store never got with it: out of reach of any lock.
      run.views[action.who]!.cutOff = new Set()
      run.destroyed.add(action.who)
      return run.instances[action.who]!.destroy()
  }
}

/**
 * Once the faults stop: what the scheduler still holds is let through, the OAuth server answers at once, the actions
 * settle, a lock nobody gives back expires, a refresh's attempts begun during the faults end; then every live
 * instance's calls succeed, the store holds a pair that was never spent and no older than any live instance's, that
 * pair refreshes once more, and no refresh token was presented twice or refused.
 */
async function afterTheFaults(
  run: Run,
  s: fc.Scheduler,
  releaseTimers: Set<NodeJS.Timeout>,
): Promise<string[]> {
  const { emulator, store } = run
  const { memberId } = emulator
  const problems: string[] = []
  store.scheduler = null
  store.faults = []
  for (const timer of releaseTimers) clearTimeout(timer)
  releaseTimers.clear()
  for (const timer of run.timers) clearTimeout(timer)
  for (const view of run.views) view.cutOff = new Set()
  emulator.releaseHeldRequests()
  while (s.count() > 0) await s.waitNext(1)
  await lockFree(store, memberId, 3 * LOCK_TTL_MS)
  // A refresh whose attempts began while an instance was cut off from the store may still be on its last one: it
  // fails at its timeout (no lock, nothing sent), and a call that joins it fails with it. Calls are checked after it.
  await sleep(ATTEMPTS_MS)
  const live = run.instances.filter((_, index) => !run.destroyed.has(index as Who))
  for (const pause of [60, 20]) {
    for (const portal of live) {
      const result = await portal.actions.v2.call
        .make({ method: 'profile', timeout: 4 * CALL_TIMEOUT_MS })
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
  const last = live[0] ?? run.instance(stored)
  if (!live.includes(last)) run.instances.push(last)
  const refused = await last.auth.refreshAuth().then(
    () => null,
    (error: unknown) => error,
  )
  if (refused) problems.push(`a refresh after the faults failed: ${describe(refused)}`)
  const presented = new Map<string, number>()
  for (const token of presentedTokens(emulator)) presented.set(token, (presented.get(token) ?? 0) + 1)
  const twice = [...presented.values()].filter((count) => count > 1).length
  if (twice > 0) problems.push(`${twice} refresh token(s) presented more than once`)
  const invalid = emulator.log.rejected('invalid_grant').length
  if (invalid > 0) problems.push(`${invalid} refresh request(s) refused with invalid_grant`)
  return problems
}

function describe(reason: unknown): string {
  if (reason instanceof Error) return reason.message
  return JSON.stringify(reason, (_key, value: unknown) => (value instanceof Error ? value.message : value))
}

/** Waits until nobody holds the portal's lock (at most `ms`). */
async function lockFree(store: ScheduledStore, memberId: string, ms: number): Promise<void> {
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
