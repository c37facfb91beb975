import { createNullLogger, type LoggerInterface, PortalOAuth, type PortalOAuthOptions } from '../src/index.js'
import { type PortalEmulator, type PortalEmulatorOptions, startPortalEmulator } from '../src/testing/index.js'

/** One logged line. */
export interface LogLine {
  level: keyof LoggerInterface
  message: string
  context?: Record<string, unknown>
}

/** A logger that keeps every line, for assertions. */
export function createMemoryLogger(): LoggerInterface & { lines: LogLine[] } {
  const lines: LogLine[] = []
  const push =
    (level: keyof LoggerInterface) =>
    (message: string, context?: Record<string, unknown>): void => {
      lines.push(context === undefined ? { level, message } : { level, message, context })
    }
  return { lines, debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }
}

/** A clock tests can move: real time plus an offset. */
export function createTestClock(): { now: () => number; advance: (ms: number) => void } {
  let offset = 0
  return { now: () => Date.now() + offset, advance: (ms) => (offset += ms) }
}

/** An emulator and a client wired to it. */
export interface Rig {
  emulator: PortalEmulator
  portal: PortalOAuth
  close: () => Promise<void>
}

/** Starts an emulator and a `PortalOAuth` holding a fresh pair it issued. */
export async function startRig(
  options: { emulator?: PortalEmulatorOptions; client?: PortalOAuthOptions; expiresIn?: number } = {},
): Promise<Rig> {
  const emulator = await startPortalEmulator(options.emulator)
  const params = emulator.issueAuthParams(
    options.expiresIn === undefined ? undefined : { expiresIn: options.expiresIn },
  )
  const portal = new PortalOAuth(
    params,
    { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
    { logger: createNullLogger(), ...options.client },
  )
  return {
    emulator,
    portal,
    close: async () => {
      await portal.destroy()
      await emulator.close()
    },
  }
}
