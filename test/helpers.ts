import { spawn } from 'node:child_process'
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

/**
 * Takes the process warnings emitted from now until `stop()`, in place of Node's own listener (which prints each to
 * stderr): a test that asserts a warning reads it here, and a passing run prints nothing that reads like a failure.
 */
export function captureProcessWarnings(): { warnings: Error[]; stop: () => void } {
  const warnings: Error[] = []
  const printers = process.listeners('warning')
  const capture = (warning: Error): void => {
    warnings.push(warning)
  }
  for (const printer of printers) process.off('warning', printer)
  process.on('warning', capture)
  return {
    warnings,
    stop: () => {
      process.off('warning', capture)
      for (const printer of printers) process.on('warning', printer)
    },
  }
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

/** What a script run in a child process printed (stdout and stderr), and its exit code (`null` when killed). */
export interface ScriptRun {
  output: string
  code: number | null
}

/**
 * Runs `script` (an ES module, TypeScript through tsx) in a child Node process with the default settings of Node, an
 * `emulator`'s pair and credentials in `PORTAL_RIG`; killed after 20 s.
 */
export async function runScriptWithRig(script: string, emulator: PortalEmulator): Promise<ScriptRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: {
      ...process.env,
      PORTAL_RIG: JSON.stringify({
        params: emulator.issueAuthParams(),
        secret: { clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve(null)
    }, 20_000)
    child.on('exit', (exitCode) => {
      clearTimeout(timer)
      resolve(exitCode)
    })
  })
  return { output, code }
}
