import { type SecretRedactor, toError } from '../errors/to-error.js'
import type { LoggerInterface } from '../logger/logger.js'
import type { CallbackRefreshAuth, RefreshAuthPayload } from '../types/auth.js'
import { invalidArgument } from '../validation/rules.js'

function ignore(): void {}

/**
 * The refresh callback the application registered (`setCallbackRefreshAuth`): run with every new pair, by the
 * machine's `persisting` state or, for a pair that arrived after its attempt was abandoned, late, within the same
 * timeout, while `destroy()` waits for it.
 */
export class RefreshCallback {
  readonly #logger: LoggerInterface
  readonly #secrets: SecretRedactor
  readonly #timeoutMs: number
  #callback: CallbackRefreshAuth | null = null
  /** Late runs under way. */
  #late: Set<Promise<void>> | null = null

  constructor(logger: LoggerInterface, secrets: SecretRedactor, timeoutMs: number) {
    this.#logger = logger
    this.#secrets = secrets
    this.#timeoutMs = timeoutMs
  }

  /** Registers `callback` (refused, naming the argument, when it is not a function). */
  set(callback: CallbackRefreshAuth): void {
    if (typeof callback !== 'function') {
      throw invalidArgument('setCallbackRefreshAuth: callback', 'must be a function')
    }
    this.#callback = callback
  }

  /** Unregisters the callback. */
  remove(): void {
    this.#callback = null
  }

  /** Runs the callback with `payload()`; rejects with its failure, free of secrets (also logged). */
  async run(payload: () => RefreshAuthPayload): Promise<void> {
    const callback = this.#callback
    if (!callback) return
    try {
      await callback(payload())
    } catch (error) {
      const failure = toError(error, this.#secrets)
      // The new pair stays in use in memory; the application learns of the failure from the log and refreshAuth().
      this.#logger.error(
        'refresh callback failed; the new token pair is kept in memory but was not persisted',
        {
          error: failure,
        },
      )
      throw failure
    }
  }

  /** Runs the callback outside the machine, bounded like its `persisting` state; see {@link settled}. */
  runLate(payload: () => RefreshAuthPayload): void {
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, this.#timeoutMs).unref())
    const run = Promise.race([this.run(payload).catch(ignore), timeout])
    this.#late ??= new Set()
    const pending = this.#late
    pending.add(run)
    void run.finally(() => pending.delete(run))
  }

  /** Resolves when every late run has ended (each within the callback timeout). */
  async settled(): Promise<void> {
    await Promise.all(this.#late ?? [])
  }
}
