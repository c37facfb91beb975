import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initialTransition, transition } from 'xstate'
import { DEFAULT_ACCESS_TOKEN_SETTINGS } from '../../machines/access-token.types.js'
import { accessTokenMachine } from '../../machines/index.js'
import { createNullLogger, PortalOAuth } from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'

let emulator: PortalEmulator
beforeAll(async () => {
  emulator = await startPortalEmulator()
})
afterAll(() => emulator.close())

/** What a snapshot says, without the machine it belongs to. */
function observed(snapshot: ReturnType<PortalOAuth['auth']['tokenActor']['getSnapshot']>) {
  const { value, context, status, children, historyValue, tags } = snapshot as unknown as Record<
    string,
    unknown
  >
  return { value, context, status, children, historyValue, tags }
}

const refreshOptions = fc.record(
  {
    eagerRefreshMs: fc.integer({ min: 0, max: 3_600_000 }),
    refreshTimeout: fc.integer({ min: 1, max: 600_000 }),
    callbackTimeout: fc.integer({ min: 1, max: 600_000 }),
    refreshRetries: fc.integer({ min: 0, max: 10 }),
    refreshRetryDelay: fc.integer({ min: 1, max: 60_000 }),
  },
  { requiredKeys: [] },
)

describe('the idle token machine of a client', () => {
  it('starts in the snapshot the machine itself computes from the same input, whatever the expiry and options', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000 }), refreshOptions, (expires, options) => {
        const portal = new PortalOAuth(
          { ...emulator.issueAuthParams(), expires },
          { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
          { ...options, logger: createNullLogger() },
        )
        try {
          const settings = {
            ...DEFAULT_ACCESS_TOKEN_SETTINGS,
            ...(options.eagerRefreshMs === undefined ? {} : { eagerRefreshMs: options.eagerRefreshMs }),
            ...(options.refreshTimeout === undefined ? {} : { refreshTimeoutMs: options.refreshTimeout }),
            ...(options.callbackTimeout === undefined ? {} : { callbackTimeoutMs: options.callbackTimeout }),
            ...(options.refreshRetries === undefined ? {} : { refreshRetries: options.refreshRetries }),
            ...(options.refreshRetryDelay === undefined
              ? {}
              : {
                  retryBaseDelayMs: options.refreshRetryDelay,
                  retryMaxDelayMs: options.refreshRetryDelay * 16,
                }),
          }
          const [expected] = initialTransition(accessTokenMachine, { expires, settings })
          expect(observed(portal.auth.tokenActor.getSnapshot())).toEqual(observed(expected))
          expect(portal.auth.tokenActor.getSnapshot().context.expires).toBe(expires)
        } finally {
          void portal.destroy()
        }
      }),
      { numRuns: 200 },
    )
  })

  it('moves, while idle, to the snapshot XState computes for the same ticks and replaced pairs', () => {
    const nowS = Math.floor(Date.now() / 1000)
    // Clearly past or clearly ahead, so that the clock read by the client and by the expected chain agree.
    const expiry = fc.oneof(
      fc.integer({ min: nowS - 86_400, max: nowS - 60 }),
      fc.integer({ min: nowS + 3_600, max: nowS + 86_400 }),
    )
    const step = fc.oneof(
      fc.constant({ kind: 'tick' as const }),
      expiry.map((expires) => ({ kind: 'replace' as const, expires })),
    )
    fc.assert(
      fc.property(expiry, fc.array(step, { maxLength: 8 }), (expires, steps) => {
        const params = { ...emulator.issueAuthParams(), expires }
        const portal = new PortalOAuth(
          params,
          { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
          { logger: createNullLogger(), eagerRefreshMs: 0 },
        )
        try {
          let [expected] = initialTransition(accessTokenMachine, {
            expires,
            settings: { ...DEFAULT_ACCESS_TOKEN_SETTINGS, eagerRefreshMs: 0 },
          })
          for (const next of steps) {
            if (next.kind === 'tick') {
              // Reading the state tells the machine the time.
              void portal.auth.tokenState
              ;[expected] = transition(accessTokenMachine, expected, { type: 'clock.tick', now: Date.now() })
            } else {
              portal.setAuthOptions({ ...params, expires: next.expires })
              ;[expected] = transition(accessTokenMachine, expected, {
                type: 'pair.replaced',
                expires: next.expires,
              })
            }
          }
          const reached = observed(portal.auth.tokenActor.getSnapshot())
          expect(reached).toEqual(observed(expected))
          // The machine knows when the pair expires, never the pair: no token reaches its snapshot.
          const text = JSON.stringify(reached)
          expect(text).not.toContain(params.accessToken)
          expect(text).not.toContain(params.refreshToken)
        } finally {
          void portal.destroy()
        }
      }),
      { numRuns: 200 },
    )
  })
})
