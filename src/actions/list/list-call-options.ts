import { validateCallOptions } from '../../http/validate-call.js'
import type { ApiVersion } from '../../types/api-version.js'
import { invalidArgument, isPlainObject } from '../../validation/rules.js'

/** The call-level options every list action shares, validated. */
export interface ListCallOptions {
  /** The method, normalised. */
  method: string
  /** A copy of the caller's parameters. */
  params: Record<string, unknown>
  /** Label of every page request. */
  requestId: string | undefined
  /** Cancels the listing. */
  signal: AbortSignal | undefined
}

/** Validates `method`, `params`, `requestId` and `signal` of a list action; throws an `SdkError` naming the field. */
export function readListCallOptions(input: unknown, apiVersion: ApiVersion, action: string): ListCallOptions {
  if (!isPlainObject(input)) {
    throw invalidArgument(`${apiVersion} ${action}: options`, 'must be an object like { method, params }')
  }
  const { method, params, requestId, signal } = input as {
    method: string
    params?: Record<string, unknown>
    requestId?: string
    signal?: AbortSignal
  }
  const valid = validateCallOptions({ method, params, requestId, signal }, apiVersion)
  return { method: valid.method, params: { ...valid.params }, requestId, signal }
}

/** The key of `params` that is `name` in any letter case (`filter` or `FILTER`), if any. */
export function keyOf(params: Record<string, unknown>, name: string): string | undefined {
  return Object.keys(params).find((key) => key.toLowerCase() === name)
}

/** Whether `order` asks for exactly what the keyset sends: `{ [idKey]: 'ASC' }` (any letter case). */
export function isAscendingById(order: unknown, idKey: string): boolean {
  if (!isPlainObject(order)) return false
  const entries = Object.entries(order)
  const [entry] = entries
  return (
    entries.length === 1 &&
    entry !== undefined &&
    entry[0].toLowerCase() === idKey.toLowerCase() &&
    String(entry[1]).toUpperCase() === 'ASC'
  )
}

/** `params` without `keys`. */
export function omitKeys(
  params: Record<string, unknown>,
  keys: Array<string | undefined>,
): Record<string, unknown> {
  const out = { ...params }
  for (const key of keys) if (key !== undefined) delete out[key]
  return out
}
