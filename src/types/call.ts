/** Options of `actions.v2.call.make` / `actions.v3.call.make`. */
export interface CallOptions {
  /** REST method name, for example `crm.deal.list`. */
  method: string
  /** Method parameters; sent as the JSON body (with the access token as `auth`). */
  params?: Record<string, unknown>
  /** A caller-chosen label, sent as the `X-Request-Id` header and kept in results and errors. */
  requestId?: string
  /** Cancels the call: its waits in the limiter, its request and its retries. */
  signal?: AbortSignal
  /** Timeout of each attempt of this call, ms (default: `httpOptions.timeout`). */
  timeout?: number
  /** Extra headers for this call, for example v3's `Idempotency-Key`. */
  headers?: Record<string, string>
  /**
   * Whether a failure that may have reached the portal (timeout, reset) is retried. Default: only for calls that
   * cannot create twice (reads, v3 calls with an `Idempotency-Key`). A refused connection is always retried.
   */
  retryOnNetworkError?: boolean
}
