/**
 * The signal a wait for a slot of the rate limit runs under: it aborts when the caller's signal does, or when the
 * call's deadline passes. `close()` drops the timer and the listener, so nothing outlives the wait.
 */
export class SlotDeadline {
  readonly #controller = new AbortController()
  readonly #timer: NodeJS.Timeout | undefined
  readonly #caller: AbortSignal | undefined
  readonly #onCallerAbort = (): void => this.#controller.abort(this.#caller?.reason)
  #expired = false

  /** `leftMs`: what the call has left of its timeout; `caller`: the call's own signal, if any. */
  constructor(leftMs: number, caller: AbortSignal | undefined) {
    this.#caller = caller
    if (caller?.aborted) this.#controller.abort(caller.reason)
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true })
    if (leftMs <= 0) this.#expire()
    else if (!this.#controller.signal.aborted) {
      this.#timer = setTimeout(() => this.#expire(), leftMs)
      // A call whose process has nothing else to do must not be kept alive by its own deadline alone.
      this.#timer.unref()
    }
  }

  /** Aborts the wait. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** Whether the deadline, not the caller, ended the wait. */
  get expired(): boolean {
    return this.#expired
  }

  /** Drops the timer and the listener on the caller's signal. */
  close(): void {
    clearTimeout(this.#timer)
    this.#caller?.removeEventListener('abort', this.#onCallerAbort)
  }

  #expire(): void {
    if (this.#controller.signal.aborted) return
    this.#expired = true
    this.#controller.abort(new Error('the call timed out waiting for a slot'))
  }
}
