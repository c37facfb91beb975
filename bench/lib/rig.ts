import type { PortalOAuth, PortalOAuthOptions } from '../../src/index.js'
import type { EmulatorAuthParams, PortalEmulatorProcess } from '../../src/testing/index.js'
import { lib, testing } from './package.js'

/** Rows of the list read by the `fetchList` figure. */
export const LIST_ROWS = 100_000

/** A limiter setting that never makes a CPU figure wait: the figure measures the client, not the pacing. */
export const UNPACED = { rateLimit: { burstLimit: 1_000_000, drainRate: 1_000_000 } }

/** The emulator in its own process, and a way to get clients of it. */
export interface BenchRig {
  /** The emulator child process. */
  emulator: PortalEmulatorProcess
  /** A new client with a fresh token pair (a chain of its own), silent logger. */
  client(options?: PortalOAuthOptions, pair?: { expiresIn?: number }): Promise<PortalOAuth>
  /** A fresh token pair. */
  pair(overrides?: { expiresIn?: number }): Promise<EmulatorAuthParams>
  /** Closes the emulator. */
  close(): Promise<void>
}

/**
 * Starts the emulator in a child process: no bucket and no operating limit (figures that need the bucket switch it
 * on), the contact list at {@link LIST_ROWS} rows, and a bounded request log so that long figures stay cheap.
 */
export async function startBenchRig(): Promise<BenchRig> {
  const emulator = await testing.startPortalEmulatorProcess({
    rateLimit: false,
    operatingLimit: false,
    lists: { 'crm.contact.list': LIST_ROWS },
    logLimit: 20_000,
  })
  const secret = { clientId: emulator.clientId, clientSecret: emulator.clientSecret }
  return {
    emulator,
    pair: (overrides) => emulator.issueAuthParams(overrides),
    client: async (options, pair) =>
      new lib.PortalOAuth(await emulator.issueAuthParams(pair), secret, {
        logger: lib.createNullLogger(),
        ...options,
      }),
    close: () => emulator.close(),
  }
}
