import { type ChildProcess, fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { trustWhileRunning } from '../trust/oauth-servers.js'
import type {
  ChildMessage,
  ParentMessage,
  PortalEmulatorProcessOptions,
  ProcessEmulatorInfo,
  ProcessOp,
} from './process-protocol.js'
import type {
  EmulatorAuthOverrides,
  EmulatorAuthParams,
  EmulatorCurrentTokens,
  EmulatorDelayFilter,
  EmulatorDropFilter,
  EmulatorOAuthFailure,
  EmulatorOperatingLimit,
  EmulatorRateLimit,
  EmulatorTokenFailure,
  EmulatorTokenPatch,
  EmulatorWebhookOptions,
  RequestLogEntry,
} from './types.js'

export type { PortalEmulatorProcessOptions } from './process-protocol.js'

/** An emulator running in a child process: same endpoints and credentials, asynchronous controls. */
export interface PortalEmulatorProcess {
  /** The emulated portal's origin (`http://127.0.0.1:<port>`). */
  readonly portalOrigin: string
  /** REST root of the portal. */
  readonly clientEndpoint: string
  /** REST root of the OAuth server. */
  readonly serverEndpoint: string
  /** The token endpoint. */
  readonly tokenUrl: string
  /** The OAuth server's origin, trusted until `close()` (see `PortalEmulator.oauthServer`). */
  readonly oauthServer: string
  /** OAuth `client_id` the emulator accepts. */
  readonly clientId: string
  /** OAuth `client_secret` the emulator accepts. */
  readonly clientSecret: string
  /** The emulated portal's member id. */
  readonly memberId: string
  /** The application token of the installation. */
  readonly applicationToken: string
  /** Process id of the child. */
  readonly pid: number | undefined
  /** A fresh token pair (a new renewal chain). */
  issueAuthParams(overrides?: EmulatorAuthOverrides): Promise<EmulatorAuthParams>
  /** A webhook base URL the emulator accepts. */
  createWebhook(options?: EmulatorWebhookOptions): Promise<string>
  /** A copy of every request log entry so far. */
  getLog(): Promise<RequestLogEntry[]>
  /** Forget the request log. */
  clearLog(): Promise<void>
  /** The newest pair's tokens, each undefined when no longer valid. */
  currentTokens(): Promise<EmulatorCurrentTokens>
  /** See `PortalEmulator.expireAccessTokens`. */
  expireAccessTokens(): Promise<void>
  /** See `PortalEmulator.failOAuth`. */
  failOAuth(error: EmulatorOAuthFailure, times?: number): Promise<void>
  /** See `PortalEmulator.dropConnections`. */
  dropConnections(times: number, filter?: EmulatorDropFilter): Promise<void>
  /** See `PortalEmulator.delayRequests`. */
  delayRequests(ms: number, times: number, filter?: EmulatorDelayFilter): Promise<void>
  /** See `PortalEmulator.holdRequests`. */
  holdRequests(times?: number, filter?: EmulatorDelayFilter): Promise<void>
  /** See `PortalEmulator.waitForHeld`. */
  waitForHeld(count?: number): Promise<void>
  /** See `PortalEmulator.releaseHeldRequests`. */
  releaseHeldRequests(): Promise<void>
  /** See `PortalEmulator.mutateTokenResponses`. */
  mutateTokenResponses(patch: EmulatorTokenPatch, times?: number): Promise<void>
  /** See `PortalEmulator.failTokenRequests`. */
  failTokenRequests(failure: EmulatorTokenFailure, times?: number): Promise<void>
  /** See `PortalEmulator.clearFaults`. */
  clearFaults(): Promise<void>
  /** See `PortalEmulator.setLatency`. */
  setLatency(ms: number): Promise<void>
  /** See `PortalEmulator.setRateLimit`. */
  setRateLimit(limit: EmulatorRateLimit | false): Promise<void>
  /** See `PortalEmulator.setOperatingLimit`. */
  setOperatingLimit(limit: EmulatorOperatingLimit | false): Promise<void>
  /** See `PortalEmulator.setMethodCost`. */
  setMethodCost(method: string, ms: number): Promise<void>
  /** See `PortalEmulator.setAdmin`. */
  setAdmin(isAdmin: boolean, userId?: number): Promise<void>
  /** Close the emulator and wait for the child process to exit. */
  close(): Promise<void>
}

const START_TIMEOUT_MS = 20_000
const EXIT_TIMEOUT_MS = 5_000

function tsxLoader(): string {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  } catch {
    return 'tsx'
  }
}

function forkChild(options: PortalEmulatorProcessOptions): ChildProcess {
  const args = [JSON.stringify(options)]
  const stdio: ['ignore', 'inherit', 'inherit', 'ipc'] = ['ignore', 'inherit', 'inherit', 'ipc']
  const built = fileURLToPath(new URL('./child.js', import.meta.url))
  if (existsSync(built)) return fork(built, args, { execArgv: [], stdio, serialization: 'advanced' })
  const source = fileURLToPath(new URL('./child.ts', import.meta.url))
  return fork(source, args, { execArgv: ['--import', tsxLoader()], stdio, serialization: 'advanced' })
}

interface Pending {
  resolve(value: unknown): void
  reject(error: Error): void
}

class ChildEmulator implements PortalEmulatorProcess {
  readonly #child: ChildProcess
  readonly #info: ProcessEmulatorInfo
  readonly #pending = new Map<number, Pending>()
  readonly #exited: Promise<void>
  /** Ends the trust in the child's OAuth server that its start gave to clients of this process. */
  readonly #untrust: () => void
  #nextId = 0
  #closing: Promise<void> | undefined

  constructor(child: ChildProcess, info: ProcessEmulatorInfo) {
    this.#child = child
    this.#info = info
    this.#untrust = trustWhileRunning(new URL(info.serverEndpoint).origin)
    this.#exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve()
      else child.once('exit', () => resolve())
    })
    // A child that died frees its port for anyone: its OAuth server is trusted no more.
    void this.#exited.then(this.#untrust)
    child.on('message', (message: ChildMessage) => {
      if (message.type !== 'result') return
      const pending = this.#pending.get(message.id)
      if (!pending) return
      this.#pending.delete(message.id)
      if (message.ok) pending.resolve(message.value)
      else pending.reject(new Error(message.message))
    })
    child.once('exit', (code, signal) => {
      for (const pending of this.#pending.values()) {
        pending.reject(new Error(`The emulator process exited (code ${code}, signal ${signal})`))
      }
      this.#pending.clear()
    })
  }

  get portalOrigin(): string {
    return this.#info.portalOrigin
  }
  get clientEndpoint(): string {
    return this.#info.clientEndpoint
  }
  get serverEndpoint(): string {
    return this.#info.serverEndpoint
  }
  get tokenUrl(): string {
    return this.#info.tokenUrl
  }
  get oauthServer(): string {
    return new URL(this.#info.serverEndpoint).origin
  }
  get clientId(): string {
    return this.#info.clientId
  }
  get clientSecret(): string {
    return this.#info.clientSecret
  }
  get memberId(): string {
    return this.#info.memberId
  }
  get applicationToken(): string {
    return this.#info.applicationToken
  }
  get pid(): number | undefined {
    return this.#child.pid
  }

  #call<T>(op: ProcessOp, ...args: unknown[]): Promise<T> {
    if (!this.#child.connected) return Promise.reject(new Error('The emulator process is not running'))
    this.#nextId += 1
    const id = this.#nextId
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (value) => resolve(value as T), reject })
      const message: ParentMessage = { type: 'call', id, op, args }
      this.#child.send(message)
    })
  }

  issueAuthParams(overrides?: EmulatorAuthOverrides): Promise<EmulatorAuthParams> {
    return this.#call('issueAuthParams', overrides)
  }
  createWebhook(options?: EmulatorWebhookOptions): Promise<string> {
    return this.#call('createWebhook', options)
  }
  getLog(): Promise<RequestLogEntry[]> {
    return this.#call('getLog')
  }
  clearLog(): Promise<void> {
    return this.#call('clearLog')
  }
  currentTokens(): Promise<EmulatorCurrentTokens> {
    return this.#call('currentTokens')
  }
  expireAccessTokens(): Promise<void> {
    return this.#call('expireAccessTokens')
  }
  failOAuth(error: EmulatorOAuthFailure, times?: number): Promise<void> {
    return this.#call('failOAuth', error, times)
  }
  dropConnections(times: number, filter?: EmulatorDropFilter): Promise<void> {
    return this.#call('dropConnections', times, filter)
  }
  delayRequests(ms: number, times: number, filter?: EmulatorDelayFilter): Promise<void> {
    return this.#call('delayRequests', ms, times, filter)
  }
  holdRequests(times?: number, filter?: EmulatorDelayFilter): Promise<void> {
    return this.#call('holdRequests', times, filter)
  }
  waitForHeld(count?: number): Promise<void> {
    return this.#call('waitForHeld', count)
  }
  releaseHeldRequests(): Promise<void> {
    return this.#call('releaseHeldRequests')
  }
  mutateTokenResponses(patch: EmulatorTokenPatch, times?: number): Promise<void> {
    return this.#call('mutateTokenResponses', patch, times)
  }
  failTokenRequests(failure: EmulatorTokenFailure, times?: number): Promise<void> {
    return this.#call('failTokenRequests', failure, times)
  }
  clearFaults(): Promise<void> {
    return this.#call('clearFaults')
  }
  setLatency(ms: number): Promise<void> {
    return this.#call('setLatency', ms)
  }
  setRateLimit(limit: EmulatorRateLimit | false): Promise<void> {
    return this.#call('setRateLimit', limit)
  }
  setOperatingLimit(limit: EmulatorOperatingLimit | false): Promise<void> {
    return this.#call('setOperatingLimit', limit)
  }
  setMethodCost(method: string, ms: number): Promise<void> {
    return this.#call('setMethodCost', method, ms)
  }
  setAdmin(isAdmin: boolean, userId?: number): Promise<void> {
    return this.#call('setAdmin', isAdmin, userId)
  }

  close(): Promise<void> {
    this.#untrust()
    if (!this.#closing) this.#closing = this.#shutdown()
    return this.#closing
  }

  async #shutdown(): Promise<void> {
    if (this.#child.connected) await this.#call('close').catch(() => undefined)
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), EXIT_TIMEOUT_MS)
    await this.#exited
    clearTimeout(timer)
  }
}

/**
 * Start the emulator in a forked child Node process (for benchmarks that must not share the event loop with the
 * server) and return a proxy: the endpoints and credentials are plain properties, the controls are asynchronous.
 * Options holding functions are not supported across processes: `now` is refused (the child uses `Date.now`), and
 * custom methods (`defineMethod`) are not available. Resolves `./child.js` next to this file (built package) or
 * falls back to `./child.ts` run with `--import tsx` (sources under tsx or vitest). Call `close()` when done.
 */
export async function startPortalEmulatorProcess(
  options: PortalEmulatorProcessOptions = {},
): Promise<PortalEmulatorProcess> {
  if ('now' in options && typeof (options as { now?: unknown }).now === 'function') {
    throw new TypeError('startPortalEmulatorProcess: the `now` option cannot cross process boundaries')
  }
  const child = forkChild(options)
  const info = await new Promise<ProcessEmulatorInfo>((resolve, reject) => {
    const fail = (error: Error): void => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
      child.kill('SIGKILL')
      reject(error)
    }
    const timer = setTimeout(
      () => fail(new Error('The emulator process did not start in time')),
      START_TIMEOUT_MS,
    )
    const onMessage = (message: ChildMessage): void => {
      if (message.type === 'ready') {
        clearTimeout(timer)
        child.off('message', onMessage)
        child.off('exit', onExit)
        resolve(message.info)
      } else if (message.type === 'failed') {
        fail(new Error(`The emulator process failed to start: ${message.message}`))
      }
    }
    const onExit = (code: number | null): void =>
      fail(new Error(`The emulator process exited early (code ${code})`))
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
  return new ChildEmulator(child, info)
}
