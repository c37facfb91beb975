import { setMaxListeners } from 'node:events'
import { type Actor, waitFor } from 'xstate'
import type {
  AccessTokenSettings,
  CallbackFailure,
  RefreshFailure,
} from '../../machines/access-token.types.js'
import { AjaxError } from '../errors/ajax-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { type ProvidedTokenMachine, type TokenSnapshot, topState } from './token-machine.js'

/** What a caller waited for: the refresh it joined, and how it ended. */
export type WaitOutcome = { ok: true; callbackFailure: CallbackFailure | null } | { ok: false; error: Error }

/** A caller waits for the refresh in flight unless it is a background refresh of a token still usable. */
export function mustWait(snapshot: TokenSnapshot, now: number): boolean {
  if (topState(snapshot) !== 'refreshing') return false
  if (snapshot.matches({ refreshing: 'persisting' })) return true
  return !snapshot.context.background || snapshot.context.expires * 1000 <= now
}

/** The error that killed the pair, when the machine is in `dead`. */
export function deadError(snapshot: TokenSnapshot): Error | undefined {
  if (topState(snapshot) !== 'dead') return undefined
  return failureError(snapshot.context.lastFailure, snapshot.context.settings)
}

/**
 * Waits, within `waitMs`, `signal` and `closing`, until the refresh in flight is over, and tells how it ended
 * compared with the counters in `before` (taken when the caller joined it). A wait that times out names
 * `shared.fault`, the shared store's failure that keeps the refresh from its lock, when there is one.
 */
export async function awaitRefresh(
  actor: Actor<ProvidedTokenMachine>,
  before: { refreshCount: number; failureCount: number },
  closing: AbortSignal,
  signal: AbortSignal | undefined,
  waitMs: number | undefined,
  shared: { readonly fault: Error | null } | null = null,
): Promise<WaitOutcome> {
  // Every call waiting for a refresh listens to the closing signal: hundreds at once are normal, not a leak.
  setMaxListeners(0, closing)
  const stop = signal ? AbortSignal.any([signal, closing]) : closing
  let snapshot: TokenSnapshot
  try {
    snapshot = await waitFor(actor, (current) => topState(current) !== 'refreshing', {
      timeout: waitMs ?? Number.POSITIVE_INFINITY,
      signal: stop,
    })
  } catch (error) {
    if (closing.aborted) throw closing.reason
    if (signal?.aborted) throw signal.reason
    const fault = shared?.fault
    throw new AjaxError({
      code: SdkErrorCode.RequestTimeout,
      message: `token refresh: no new access token within ${Math.round(waitMs ?? 0)} ms, what the call had left of its timeout (the refresh goes on for other callers)${fault ? `; ${fault.message}` : ''}`,
      request: { method: 'oauth/token' },
      cause: error,
    })
  }
  const { context } = snapshot
  if (topState(snapshot) === 'dead')
    return { ok: false, error: failureError(context.lastFailure, context.settings) }
  if (context.refreshCount > before.refreshCount)
    return { ok: true, callbackFailure: context.callbackFailure }
  if (context.failureCount > before.failureCount) {
    return { ok: false, error: failureError(context.lastFailure, context.settings, shared?.fault) }
  }
  // The pair was replaced while the caller waited: go on with it.
  return { ok: true, callbackFailure: null }
}

/**
 * The error callers get for a failed refresh. An attempt that timed out while a shared store failed to give the lock
 * names that failure (`storeFault`).
 */
export function failureError(
  failure: RefreshFailure | null,
  settings: AccessTokenSettings,
  storeFault?: Error | null,
): Error {
  if (failure?.timedOut) {
    return new AjaxError({
      code: SdkErrorCode.RequestTimeout,
      message: `token refresh: no answer within ${settings.refreshTimeoutMs} ms${storeFault ? `; ${storeFault.message}` : ''}`,
      request: { method: 'oauth/token' },
    })
  }
  if (failure?.error instanceof Error) return failure.error
  return new SdkError({ code: SdkErrorCode.Internal, message: 'token refresh failed without an error' })
}

/** The error `refreshAuth()` rejects with when the refresh callback failed. */
export function callbackError(failure: CallbackFailure, settings: AccessTokenSettings): Error {
  if (failure.timedOut || !(failure.error instanceof Error)) {
    return new SdkError({
      code: SdkErrorCode.CallbackTimeout,
      message: `refresh callback did not settle within ${settings.callbackTimeoutMs} ms; the new token pair is in use but may not be persisted`,
    })
  }
  return failure.error
}
