import { SdkError } from '../errors/sdk-error.js'
import type { AjaxPayload } from '../results/ajax-result.js'

/** A portal error read from an answer body, in either envelope. */
export interface PortalError {
  /** The portal's code (`expired_token`, `ERROR_METHOD_NOT_FOUND`, `BITRIX_REST_V3_EXCEPTION_…`). */
  code: string
  /** The portal's description, empty when none. */
  description: string
  /** v3 request validation messages, `field: message`. */
  validation: string[]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The error of an answer body, or `null` for a success. Accepts the flat v2 shape
 * `{ error, error_description }` and the nested v3 shape `{ error: { code, message, validation } }`.
 */
export function readPortalError(body: unknown): PortalError | null {
  if (!isRecord(body) || body.error === undefined || body.error === null) return null
  const { error } = body
  if (typeof error === 'string') {
    return {
      code: error,
      description: typeof body.error_description === 'string' ? body.error_description : '',
      validation: [],
    }
  }
  if (isRecord(error)) {
    const validation = Array.isArray(error.validation)
      ? error.validation
          .filter(isRecord)
          .map((item) => `${String(item.field ?? '')}: ${String(item.message ?? '')}`)
      : []
    return {
      code: typeof error.code === 'string' ? error.code : 'ERROR',
      description: typeof error.message === 'string' ? error.message : '',
      validation,
    }
  }
  return { code: String(error), description: '', validation: [] }
}

/** The portal errors of an answer as {@link SdkError}s: the main error, then one per validation message. */
export function portalErrorsToSdkErrors(error: PortalError, status: number): SdkError[] {
  const main = new SdkError({
    code: error.code,
    message: error.description || error.code,
    description: error.description,
    status,
  })
  return [
    main,
    ...error.validation.map(
      (message) => new SdkError({ code: error.code, message, description: message, status }),
    ),
  ]
}

/** A success body as an {@link AjaxPayload}; keeps `result`, `next`, `total` and `time`. */
export function readPayload<T>(body: unknown): AjaxPayload<T> {
  const record = isRecord(body) ? body : { result: body }
  const payload: AjaxPayload<T> = { result: record.result as T }
  if (typeof record.next === 'number') payload.next = record.next
  if (typeof record.total === 'number') payload.total = record.total
  if (isRecord(record.time)) payload.time = record.time as unknown as AjaxPayload<T>['time']
  return payload
}

/** Codes of a 401 that a fresh access token may cure. */
export const TOKEN_REJECTION_CODES: ReadonlySet<string> = new Set(['expired_token', 'invalid_token'])
