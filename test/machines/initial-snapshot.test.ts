import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initialTransition } from 'xstate'
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

describe('the token machine of a new client', () => {
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
})
