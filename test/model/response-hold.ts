import type { FetchLike } from '../../src/index.js'

/** Which answer a {@link ResponseHold} keeps back. */
export type HoldTarget =
  /** The next answer of the OAuth token endpoint. */
  | { kind: 'token'; tokenUrl: string }
  /** The next answer of a REST method (v2 path `…/rest/{method}`). */
  | { kind: 'rest'; method: string }
  /** Nothing on the wire: code under test calls `reached()` itself (a custom refresh function). */
  | { kind: 'manual' }

/** A promise and the function that resolves it. */
export interface Deferred {
  promise: Promise<void>
  resolve: () => void
}

/** A promise resolved from outside. */
export function deferred(): Deferred {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

function urlOf(input: Request | string | URL): URL {
  return new URL(input instanceof Request ? input.url : String(input))
}

function matches(target: HoldTarget, url: URL): boolean {
  // The query is left out: a client that wrongly put something there is caught by the URL checks, not by a hang.
  if (target.kind === 'token') return url.origin + url.pathname === new URL(target.tokenUrl).href
  if (target.kind === 'rest') return url.pathname.replace(/\.json$/, '').endsWith(`/rest/${target.method}`)
  return false
}

/**
 * Keeps one answer back so a test can look at the client while a refresh (or a `profile` call) is in flight. It is
 * the client's `httpOptions.adapter`: the request really goes to the emulator and is answered; only handing the
 * answer to the client waits for {@link release}. Everything not armed for passes straight through.
 *
 * Why an adapter and not the emulator: the emulator's `delayRequests` holds an answer for a fixed time, and a path
 * must look at the client for as long as its checks take, then let the answer go, on any machine speed.
 */
export class ResponseHold {
  #target: HoldTarget | null = null
  #arrived = deferred()
  #released = deferred()

  /** The fetch-compatible adapter to give the client. */
  readonly fetch: FetchLike = async (input, init) => {
    const response = await fetch(input, init)
    const target = this.#target
    if (target && matches(target, urlOf(input))) await this.reached()
    return response
  }

  /** Hold the next answer matching `target`. */
  arm(target: HoldTarget): void {
    if (this.#target) throw new Error('ResponseHold: already armed')
    this.#target = target
    this.#arrived = deferred()
    this.#released = deferred()
  }

  /** Marks the armed answer as arrived and waits until it is released. */
  async reached(): Promise<void> {
    this.#target = null
    this.#arrived.resolve()
    await this.#released.promise
  }

  /** Resolves once the armed answer is held (the request was answered by the emulator). */
  get arrived(): Promise<void> {
    return this.#arrived.promise
  }

  /** Hands the held answer to the client (and disarms a hold that never matched). */
  release(): void {
    this.#target = null
    this.#released.resolve()
  }
}
