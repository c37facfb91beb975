/** The signal of one request and what lets it go once the request has ended. */
export interface BoundRequest {
  /** Aborted at the request's time limit or when the requests are abandoned. */
  readonly signal: AbortSignal
  /** The request has ended: stops its timer and forgets it. Safe to call more than once. */
  readonly close: () => void
}

/** The reason `AbortSignal.timeout()` gives, so that an ended request reads the same as before. */
function timeoutReason(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError')
}

/**
 * Bounds the requests of one owner: each ends at its own time limit, and every one ends when the owner abandons them.
 * One controller and one timer per request, both dropped when it ends. Not `AbortSignal.any([AbortSignal.timeout(),
 * owner's signal])`: on the refresh request's path Node 24 kept every such signal for good in its set of signals
 * held alive for their listeners (`gcPersistentSignals`), with weak references to its sources, about 470 B per
 * request (heap snapshots, docs/benchmarks.md).
 */
export class RequestBounds {
  /** The requests not yet ended, aborted by `abandon()`. */
  readonly #open = new Set<AbortController>()
  #abandoned = false

  /** Ends the requests open now and any opened later. */
  abandon(): void {
    this.#abandoned = true
    for (const controller of this.#open) controller.abort()
    this.#open.clear()
  }

  /** A signal for one request that ends after `timeoutMs` at the latest; call `close()` once the request has ended. */
  open(timeoutMs: number): BoundRequest {
    const controller = new AbortController()
    if (this.#abandoned) {
      controller.abort()
      return { signal: controller.signal, close: () => {} }
    }
    // Unref'd, as AbortSignal.timeout()'s: a request in flight does not keep the process alive. It forgets the
    // request too, in case `close()` is never called (the request threw before it started).
    const timer = setTimeout(() => {
      this.#open.delete(controller)
      controller.abort(timeoutReason())
    }, timeoutMs).unref()
    this.#open.add(controller)
    return {
      signal: controller.signal,
      close: () => {
        clearTimeout(timer)
        this.#open.delete(controller)
      },
    }
  }
}
