import {
  type InspectOption,
  type LoggerInterface,
  PortalOAuth,
  type RefreshAuthPayload,
} from '../../src/index.js'
import { type PortalEmulator, startPortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger, type LogLine } from '../helpers.js'
import { ResponseHold } from './response-hold.js'

/** A clock shared by the client and the emulator, set by the test. */
export interface ModelClock {
  /** The current time, ms. */
  now: () => number
  /** Moves the clock to `ms` (forwards or backwards). */
  set: (ms: number) => void
}

/** Real time plus an offset the test sets. */
export function createModelClock(): ModelClock {
  let offset = 0
  return {
    now: () => Date.now() + offset,
    set: (ms) => {
      offset = ms - Date.now()
    },
  }
}

/** What one path runs against: its own emulator and client, a shared clock, a response hold, a log. */
export interface ModelRig {
  clock: ModelClock
  emulator: PortalEmulator
  portal: PortalOAuth
  hold: ResponseHold
  /** Every line the client logged. */
  logLines: LogLine[]
  /** Every payload the refresh callback received, in order, recorded when the callback starts. */
  callbackCalls: RefreshAuthPayload[]
  /** The payloads whose callback has finished (it persists asynchronously), in order. */
  persisted: RefreshAuthPayload[]
  /** Stops the client and the emulator. */
  close: () => Promise<void>
}

/**
 * Starts an emulator (no rate or operating limit: a path makes few calls, in bursts) and a `PortalOAuth` holding a
 * fresh pair, both on one test clock, with a refresh callback that records its calls and persists asynchronously
 * (so a client that does not await it is seen). `inspect` observes the client's actors.
 */
export async function startModelRig(options: { inspect?: InspectOption } = {}): Promise<ModelRig> {
  const clock = createModelClock()
  const emulator = await startPortalEmulator({ now: clock.now, rateLimit: false, operatingLimit: false })
  const hold = new ResponseHold()
  const logger: LoggerInterface & { lines: LogLine[] } = createMemoryLogger()
  const portal = new PortalOAuth(
    emulator.issueAuthParams(),
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    {
      now: clock.now,
      logger,
      httpOptions: { adapter: hold.fetch },
      ...(options.inspect ? { inspect: options.inspect } : {}),
    },
  )
  const callbackCalls: RefreshAuthPayload[] = []
  const persisted: RefreshAuthPayload[] = []
  portal.setCallbackRefreshAuth(async (payload) => {
    callbackCalls.push(payload)
    // Persisting takes a turn of the event loop, as a write to a store does.
    await new Promise((resolve) => setImmediate(resolve))
    persisted.push(payload)
  })
  return {
    clock,
    emulator,
    portal,
    hold,
    logLines: logger.lines,
    callbackCalls,
    persisted,
    close: async () => {
      hold.release()
      await portal.destroy()
      await emulator.close()
    },
  }
}
