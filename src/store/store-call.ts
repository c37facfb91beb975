import { redactedCopy } from '../errors/redacted-copy.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { NO_SECRETS, type SecretRedactor, toError } from '../errors/to-error.js'

/**
 * Calls a method of a token store, which may be the application's own: a synchronous throw, or an answer that is not
 * a promise, becomes a promise like any other answer, so that every caller handles one kind of failure.
 */
export function callStore<T>(call: () => PromiseLike<T> | T): Promise<T> {
  try {
    return Promise.resolve(call())
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * The error of a store that failed `what` (or did not answer in time) where the client cannot go on without it:
 * `JSSDK_TOKEN_STORE_FAILED`, with the store's own error as its `cause` and that error's message, redacted, in its own.
 * With `copyCause`, the `cause` is a redacted copy of the store's error instead (see `redactedCopy`): nothing of what
 * the store threw is handed on.
 */
export function storeFailed(
  what: string,
  cause: unknown,
  secrets: SecretRedactor = NO_SECRETS,
  copyCause = false,
): SdkError {
  // The message comes from the failure's snapshot (read once, redacted); the failure itself is kept as the cause.
  const read = secrets.snapshot(cause)
  return new SdkError({
    code: SdkErrorCode.TokenStoreFailed,
    message: `token store failed ${what}: ${read.summary().message}`,
    cause: copyCause ? redactedCopy(read) : toError(cause, secrets),
  })
}

/** How long {@link answerWithin} waits, and what else ends the wait. */
export interface AnswerWait {
  /** Longest wait, ms. */
  ms: number
  /** Ends the wait with its reason when it aborts. */
  signal?: AbortSignal
  /** The secrets to keep out of the error. */
  secrets?: SecretRedactor
  /** The error's `cause` is a redacted copy of the store's error, not the error itself (see {@link storeFailed}). */
  copyCause?: boolean
}

/**
 * `pending`, a store's answer (see {@link callStore}), waited for at most `wait.ms` and no longer than `wait.signal`
 * lasts. Rejects with {@link storeFailed} when the store fails or does not answer in time, with the signal's reason
 * when it aborts first; an answer that comes later settles by itself, handled.
 */
export function answerWithin<T>(what: string, pending: Promise<T>, wait: AnswerWait): Promise<T> {
  const { ms, signal, secrets, copyCause } = wait
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const finish = (settle: () => void): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      settle()
    }
    const onAbort = (): void => finish(() => reject(signal?.reason))
    pending.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(storeFailed(what, error, secrets, copyCause))),
    )
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    if (Number.isFinite(ms)) {
      const limit = Math.max(0, ms)
      const silent = (): Error => new Error(`no answer within ${Math.round(limit)} ms`)
      timer = setTimeout(() => finish(() => reject(storeFailed(what, silent(), secrets, copyCause))), limit)
    }
  })
}
