/** The `portal-oauth` binary run as a user runs it: a child process (the sources under tsx), its output and status. */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, beforeEach } from 'vitest'
import type { PortalOAuthParams } from '../../src/index.js'
import type { RequestLogEntry } from '../../src/testing/index.js'

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** What a finished command left. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/** The environment of a command: this process's, without the trust the tests' own emulators added. */
function environment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = { ...process.env }
  delete base.PORTAL_OAUTH_TRUSTED_SERVERS
  delete base.PORTAL_OAUTH_CLIENT_ID
  delete base.PORTAL_OAUTH_CLIENT_SECRET
  return { ...base, ...env }
}

/** Starts `portal-oauth ...args`. */
export function spawnCli(args: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs `portal-oauth ...args` to its end. */
export function runCli(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CliRun> {
  const child = spawnCli(args, env)
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

/** The first line `portal-oauth emulator --json` prints. */
export interface EmulatorInfo {
  portalOrigin: string
  clientEndpoint: string
  serverEndpoint: string
  tokenUrl: string
  oauthServer: string
  controlEndpoint: string
  clientId: string
  clientSecret: string
  memberId: string
  applicationToken: string
  pair: PortalOAuthParams
}

/** A running `portal-oauth emulator --json`. */
export interface CliEmulator {
  child: ChildProcess
  info: EmulatorInfo
  /** Everything on stdout after the first line, and on stderr, so far. */
  output(): { stdout: string; stderr: string }
  /** Sends `signal` and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** `fetch` on the control API, JSON in and out. */
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>
}

const started: CliEmulator[] = []

afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.stop('SIGKILL')))
})

/** Starts `portal-oauth emulator --json ...args`, stopped after the current test. */
export async function startCliEmulator(args: readonly string[] = []): Promise<CliEmulator> {
  const child = spawnCli(['emulator', '--json', ...args])
  let stdout = ''
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const lines = createInterface({ input: child.stdout! })
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    void exited.then((code) => reject(new Error(`the emulator exited (${code}): ${stderr}`)))
  })
  lines.on('line', (line) => {
    stdout += `${line}\n`
  })
  const info = JSON.parse(first) as EmulatorInfo
  const emulator: CliEmulator = {
    child,
    info,
    output: () => ({ stdout, stderr }),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
    control: async (method, path, body) => {
      const response = await fetch(new URL(path, info.controlEndpoint), {
        method,
        ...(body !== undefined && {
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
      })
      return { status: response.status, body: await response.json() }
    },
  }
  started.push(emulator)
  return emulator
}

/** What a test of a command on a pair file works with: all new for each test. */
export interface PairFixture {
  /** A temporary directory, removed after the test. */
  readonly dir: string
  /** `portal-oauth emulator --json` running for the test. */
  readonly emulator: CliEmulator
  /** `tokens.json` in {@link dir}, holding the emulator's pair. */
  readonly pairFile: string
  /** The environment a user of the emulator sets: its credentials, and trust in its OAuth server. */
  env(): NodeJS.ProcessEnv
  /** The emulator's request log of one kind (`rest`, `token`, ...). */
  log(kind: string): Promise<RequestLogEntry[]>
}

/** For every test of the file: an emulator started with `emulatorArgs`, and a pair file of its pair in a new directory. */
export function usePairFixture(name: string, emulatorArgs: readonly string[] = []): PairFixture {
  let dir = ''
  let emulator: CliEmulator | undefined
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), `portal-oauth-${name}-`))
    emulator = await startCliEmulator(emulatorArgs)
    await writeFile(join(dir, 'tokens.json'), JSON.stringify(emulator.info.pair))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const running = (): CliEmulator => {
    if (!emulator) throw new Error('the fixture is used outside a test')
    return emulator
  }
  return {
    get dir() {
      return dir
    },
    get emulator() {
      return running()
    },
    get pairFile() {
      return join(dir, 'tokens.json')
    },
    env: () => ({
      PORTAL_OAUTH_CLIENT_ID: running().info.clientId,
      PORTAL_OAUTH_CLIENT_SECRET: running().info.clientSecret,
      PORTAL_OAUTH_TRUSTED_SERVERS: running().info.oauthServer,
    }),
    log: async (kind) => (await running().control('GET', `/log?kind=${kind}`)).body as RequestLogEntry[],
  }
}
