import { subscribe, unsubscribe } from 'node:diagnostics_channel'

/**
 * Connection failures that say nobody serves the address: the library retries them for seconds (a portal may be
 * restarting), a command from the shell fails at once.
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
])

/** undici's `undici:client:connectError` message, the fields read here. */
interface ConnectErrorMessage {
  connectParams?: { protocol?: string; host?: string; hostname?: string; port?: string | number }
  error?: { code?: unknown }
}

/** Where a connection failed, `http://127.0.0.1:8080`, from undici's connect parameters. */
function address(params: ConnectErrorMessage['connectParams']): string {
  const protocol = params?.protocol ?? 'http:'
  if (params?.host !== undefined) return `${protocol}//${params.host}`
  return `${protocol}//${params?.hostname ?? 'an unknown host'}${params?.port ? `:${params.port}` : ''}`
}

/** Watches this process's HTTP connections (undici's diagnostics channel) for an address nobody serves. */
export class ConnectFailures {
  readonly #controller = new AbortController()
  #failure: string | undefined
  readonly #onError = (message: unknown): void => {
    const { connectParams, error } = message as ConnectErrorMessage
    const code = typeof error?.code === 'string' ? error.code : undefined
    if (code === undefined || !UNREACHABLE_CODES.has(code) || this.#failure !== undefined) return
    this.#failure = `cannot connect to ${address(connectParams)} (${code})`
    this.#controller.abort()
  }

  constructor() {
    subscribe('undici:client:connectError', this.#onError)
  }

  /** Aborts at the first connection refused (or host not found): the command's calls stop their retries. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** `cannot connect to http://127.0.0.1:8080 (ECONNREFUSED)`, once a connection failed so. */
  get failure(): string | undefined {
    return this.#failure
  }

  /** Stops watching. */
  close(): void {
    unsubscribe('undici:client:connectError', this.#onError)
  }
}
