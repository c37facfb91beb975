import { performance } from 'node:perf_hooks'
import type { Caller } from './auth.js'
import { OPERATION_TIME_LIMIT } from './envelope.js'
import { EmulatorRestError } from './errors.js'
import type { OperatingState } from './limits.js'
import { type EmulatorListNav, EmulatorListPage } from './list-page.js'
import type { MethodDefinition } from './method-definition.js'
import type { EmulatorState } from './state.js'
import type { EmulatorApiVersion } from './types.js'

/** Result of running one method (alone or inside a batch). */
export type CallOutcome =
  | { ok: true; result: unknown; nav: EmulatorListNav; processingMs: number; operating: OperatingState }
  | { ok: false; error: EmulatorRestError }

/** Key of a method's operating budget: per application (or webhook) and method. */
export function operatingKey(caller: Caller, method: string): string {
  return `${caller.appKey}|${method}`
}

/** The operating limit error as a method error (used inside batches). */
export function operatingLimitError(): EmulatorRestError {
  return new EmulatorRestError(
    OPERATION_TIME_LIMIT.code,
    OPERATION_TIME_LIMIT.description,
    OPERATION_TIME_LIMIT.status,
  )
}

/**
 * Run a method: refuse it when its operating budget is used up (429), call the handler, then add the simulated cost
 * plus the measured handler time to the budget (also when the handler failed).
 */
export async function invokeMethod(
  state: EmulatorState,
  method: MethodDefinition,
  params: Record<string, unknown>,
  caller: Caller,
  version: EmulatorApiVersion,
): Promise<CallOutcome> {
  const key = operatingKey(caller, method.name)
  if (state.operating.isBlocked(key, state.now())) return { ok: false, error: operatingLimitError() }
  const started = performance.now()
  let outcome: { ok: true; value: unknown } | { ok: false; error: EmulatorRestError }
  try {
    const value = await method.handler(params, {
      version,
      userId: caller.userId,
      isWebhook: caller.isWebhook,
    })
    outcome = { ok: true, value }
  } catch (error) {
    outcome = {
      ok: false,
      error:
        error instanceof EmulatorRestError
          ? error
          : new EmulatorRestError(
              'INTERNAL_SERVER_ERROR',
              error instanceof Error ? error.message : String(error),
              500,
            ),
    }
  }
  const processingMs = performance.now() - started
  const cost = (state.settings.methodCost.get(method.name) ?? 0) + processingMs
  state.operating.record(key, state.now(), cost)
  if (!outcome.ok) return outcome
  const operating = state.operating.state(key, state.now())
  if (outcome.value instanceof EmulatorListPage) {
    return { ok: true, result: outcome.value.result, nav: outcome.value.nav, processingMs, operating }
  }
  return { ok: true, result: outcome.value, nav: {}, processingMs, operating }
}
