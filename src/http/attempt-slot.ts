import type { CallContext } from './call-context.js'
import { slotTimeoutError } from './call-errors.js'
import { SlotDeadline } from './slot-deadline.js'
import type { TransportContext } from './transport-context.js'

/** The least a call waits for a shared bucket's answer, ms, also when its timeout is spent: a round trip's worth. */
const MIN_STORE_WAIT_MS = 100

/**
 * An attempt that found no free slot waits for the method's operating delay and a slot of the bucket, within what
 * is left of the call's timeout; then it counts as an attempt.
 */
export async function waitForSlot(instance: TransportContext, context: CallContext): Promise<void> {
  const { trace } = context
  const waitFrom = trace ? performance.now() : 0
  const timeout = context.options.timeout ?? instance.http.timeout
  const left = timeout - (performance.now() - context.started)
  // The call's timeout is its deadline, the wait for a slot included: a call that gets none in time is not sent.
  const deadline = new SlotDeadline(left, context.options.signal)
  try {
    // A shared bucket's round trip waits at most half of what the call has left (a moment at least): a store that
    // does not answer leaves the other half to the instance's own bucket, which paces the call meanwhile.
    const storeWait = Math.max(MIN_STORE_WAIT_MS, left / 2)
    await instance.restrictions.acquire(context.options.method, deadline.signal, storeWait)
    if (trace) trace.limiterWaitMs += performance.now() - waitFrom
    // No request leaves after destroy(), also for a caller whose wait ended just as it happened.
    instance.assertAlive()
  } catch (error) {
    // A cancellation by the caller's signal is told where every failure of an attempt is (#send, transportError).
    // The limiter drops its waiting callers when the instance is destroyed: say so clearly.
    instance.assertAlive()
    if (deadline.expired) throw slotTimeoutError(context, timeout)
    throw error
  } finally {
    deadline.close()
  }
  context.attempts += 1
}
