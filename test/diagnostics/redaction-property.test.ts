import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type FetchLike,
  MemoryStore,
  PortalOAuth,
  type PortalOAuthOptions,
  type TokenStore,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { type CapturingLogger, capturingLogger, Observer, readEverything } from './observe-everything.js'
import { build, isErrorShape, type SecretKind, type Shape, shape } from './thrown-shapes.js'

/** How the client is driven into a failure: the four ways a foreign value comes in. */
type Way = 'custom refresh' | 'refresh callback' | 'store' | 'transport'

/** The store methods a run may make throw (each on its first call). */
const STORE_METHODS = ['load', 'save', 'lock', 'unlock', 'takeSlot', 'deadReason'] as const

let emulator: PortalEmulator
let observer: Observer
beforeAll(async () => {
  emulator = await startPortalEmulator()
  observer = new Observer()
})
afterAll(async () => {
  await observer.close()
  await emulator.close()
})

/** One run: what was thrown, what the callers got, every secret the client held. */
interface Run {
  readonly portal: PortalOAuth
  readonly logger: CapturingLogger
  readonly thrown: unknown[]
  readonly received: unknown[]
  readonly secrets: Set<string>
  /** Notes the tokens the client holds now. */
  note(): void
}

function startRun(options: (run: Omit<Run, 'portal'>) => PortalOAuthOptions, thrown: unknown[] = []): Run {
  const params = emulator.issueAuthParams()
  const logger = capturingLogger()
  const secrets = new Set([
    emulator.clientSecret,
    params.applicationToken,
    params.accessToken,
    params.refreshToken,
  ])
  const partial = { logger, thrown, received: [], secrets, note: () => {} }
  const portal = new PortalOAuth(
    params,
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    {
      logger,
      // Short, so that a run takes milliseconds: a failing store is asked again within these bounds.
      refreshTimeout: 300,
      callbackTimeout: 300,
      refreshRetries: 0,
      restrictionParams: { retryDelay: 1, maxRetries: 1 },
      ...options(partial),
    },
  )
  const note = (): void => {
    const held = portal.auth.getParams()
    secrets.add(held.accessToken)
    secrets.add(held.refreshToken)
  }
  return { ...partial, portal, note }
}

/** The secret of `kind` the client holds now. */
function secretFor(portal: PortalOAuth, kind: SecretKind): string {
  if (kind === 'clientSecret') return emulator.clientSecret
  return portal.auth.getParams()[kind]
}

/** `promise`'s rejection (or its value), kept in `received`. */
async function settle(run: Run, promise: Promise<unknown>): Promise<void> {
  run.received.push(
    await promise.then(
      (value) => value,
      (error: unknown) => error,
    ),
  )
  run.note()
}

/** Makes the client's access token expire, then makes a call: a refresh comes first. */
function callAfterExpiry(run: Run): Promise<unknown> {
  emulator.expireAccessTokens()
  return run.portal.actions.v2.call.make({ method: 'profile' })
}

/** Runs `given` through `way`; `failing`: the store methods that throw (each on its first call). */
async function drive(way: Way, given: Shape, failing: ReadonlySet<string>): Promise<Run> {
  switch (way) {
    case 'custom refresh': {
      const run = startRun(() => ({}))
      run.portal.setCustomRefreshAuth(async () => {
        const value = build(given, (kind) => secretFor(run.portal, kind))
        run.thrown.push(value)
        throw value
      })
      await settle(run, run.portal.auth.refreshAuth())
      await settle(run, callAfterExpiry(run))
      return run
    }
    case 'refresh callback': {
      const run = startRun(() => ({}))
      run.portal.setCallbackRefreshAuth(({ b24OAuthParams }) => {
        const value = build(given, (kind) =>
          kind === 'accessToken' || kind === 'refreshToken'
            ? b24OAuthParams[kind]
            : secretFor(run.portal, kind),
        )
        run.thrown.push(value)
        throw value
      })
      await settle(run, run.portal.auth.refreshAuth())
      await settle(run, callAfterExpiry(run))
      return run
    }
    case 'store': {
      let portal: PortalOAuth | undefined
      const run = startRun((partial) => ({
        store: throwingStore(
          new MemoryStore(),
          () => {
            const held = portal
            if (!held) return undefined
            const value = build(given, (kind) => secretFor(held, kind))
            partial.thrown.push(value)
            return { value }
          },
          failing,
        ),
        lockTtl: 400,
      }))
      portal = run.portal
      // The first call reads the store and takes a slot of its bucket; the refresh locks, saves and unlocks.
      await settle(run, run.portal.actions.v2.call.make({ method: 'profile' }))
      await settle(run, run.portal.auth.refreshAuth())
      return run
    }
    case 'transport': {
      let portal: PortalOAuth | undefined
      const thrown: unknown[] = []
      // A test double: the emulator answers over HTTP and cannot make fetch() throw a JavaScript value, which is what
      // an adapter (or a library under it) may do. It throws for every request, the REST call's and the refresh's.
      const adapter: FetchLike = () => {
        const held = portal
        const value = build(given, (kind) => (held ? secretFor(held, kind) : emulator.clientSecret))
        thrown.push(value)
        return Promise.reject(value)
      }
      const run = startRun(() => ({ httpOptions: { adapter } }), thrown)
      portal = run.portal
      await settle(run, run.portal.actions.v2.call.make({ method: 'profile' }))
      await settle(run, run.portal.auth.refreshAuth())
      return run
    }
  }
}

/**
 * A `MemoryStore` whose methods in `failing` throw, each on its first call, what `thrown()` builds (nothing before the
 * client exists). A test double: the emulator has no store, and a store is code of the application's choosing.
 */
function throwingStore(
  store: MemoryStore,
  thrown: () => { value: unknown } | undefined,
  failing: ReadonlySet<string>,
): TokenStore {
  const failed = new Set<string>()
  return new Proxy(store, {
    get(target, key, receiver) {
      const member: unknown = Reflect.get(target, key, receiver)
      if (typeof key !== 'string' || typeof member !== 'function' || !failing.has(key)) {
        return typeof member === 'function' ? member.bind(target) : member
      }
      return (...args: unknown[]) => {
        if (!failed.has(key)) {
          const made = thrown()
          if (made) {
            failed.add(key)
            return Promise.reject(made.value)
          }
        }
        return Reflect.apply(member, target, args)
      }
    },
  })
}

/** What `text` shows of `secrets`, if any. */
function shown(text: string, secrets: Iterable<string>): string[] {
  return [...secrets].filter((secret) => text.includes(secret))
}

/**
 * What a caller got: an `Error` thrown is rethrown unchanged, the same object, whatever it holds (spec 7: it is the
 * thrower's own; only its snapshot is published); any other value is kept as the `cause` of a `Strange error`
 * (spec 7) whose message and stack name no secret; an error of the client's own names none anywhere.
 */
function checkReceived(run: Run, given: Shape, received: unknown, index: number, way: Way): void {
  if (way === 'custom refresh' || way === 'refresh callback') {
    if (isErrorShape(given)) {
      expect(received).toBe(run.thrown[index])
      return
    }
    expect(received).toBeInstanceOf(Error)
    expect((received as Error).message).toMatch(/^Strange error: /)
  }
  // The store's and the transport's values reach a caller as they were thrown, or wrapped by the client (a store
  // failure, a Strange error) with the thrown value kept at the end of the cause chain: the wrappers' own messages
  // and stacks name no secret.
  if (run.thrown.includes(received)) return
  const wrappers: Error[] = []
  for (let link: unknown = received; link instanceof Error && wrappers.length < 5; link = link.cause) {
    wrappers.push(link)
    if (run.thrown.includes(link.cause)) {
      for (const wrapper of wrappers)
        expect(
          shown(readEverything({ message: wrapper.message, stack: wrapper.stack }), run.secrets),
        ).toEqual([])
      return
    }
  }
  expect(shown(readEverything(received), run.secrets)).toEqual([])
}

/** The store methods that throw, as fast-check generates them. */
type Failing = Array<(typeof STORE_METHODS)[number]>

/** Values every run of a way tries first: the two shapes measured leaking, and what fast-check once found. */
const EXAMPLES: Array<[Shape, Failing]> = [
  [{ kind: 'prototype-getter', key: 'code', secret: 'refreshToken' }, ['load']],
  [{ kind: 'changing-getter', secret: 'refreshToken' }, ['takeSlot']],
  // A store's failure that is a Proxy whose traps throw, met while the refresh lock is held.
  [{ kind: 'proxy-throws', secret: 'refreshToken' }, ['deadReason']],
  // A plain object holding itself and a message that quotes the refresh token, thrown by a store's dead-pair read.
  [
    { kind: 'plain', inner: { kind: 'cycle', inner: { kind: 'message', secret: 'refreshToken' } } },
    ['deadReason'],
  ],
]

/** Drives `way` with generated values; every publication, span, measurement and log line is searched. */
async function property(way: Way, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(shape, fc.subarray([...STORE_METHODS], { minLength: 1 }), async (given, failing) => {
      observer.reset()
      const run = await drive(way, given, new Set(failing))
      try {
        run.note()
        expect(run.thrown.length).toBeGreaterThan(0)
        const everything = await observer.everything(run.logger)
        expect(shown(everything, run.secrets)).toEqual([])
        for (const [index, received] of run.received.entries()) {
          // A call that went through (a failed callback or store leaves the pair in use) has nothing to check.
          if (!(received instanceof Error) && !run.thrown.includes(received) && way !== 'custom refresh')
            continue
          checkReceived(run, given, received, index, way)
        }
      } finally {
        await run.portal.destroy()
      }
    }),
    { numRuns, examples: EXAMPLES },
  )
}

describe('no secret of a thrown value reaches a channel, span, measurement or log line, whatever its shape', () => {
  it('thrown by a custom refresh', async () => {
    await property('custom refresh', 25)
  })

  it('thrown by the refresh callback', async () => {
    await property('refresh callback', 25)
  })

  it('thrown by a store', async () => {
    await property('store', 15)
  })

  it('thrown by the transport', async () => {
    await property('transport', 15)
  })
})
