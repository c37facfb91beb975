/** One failed field of a v3 request validation error. */
export interface EmulatorValidationItem {
  /** The parameter at fault. */
  field: string
  /** What was wrong with it. */
  message: string
}

/**
 * Thrown by a method handler to answer a REST error: v2 renders `{ error: code, error_description: description,
 * argument? }`, v3 renders `{ error: { code, message: description, validation? } }`; both with HTTP `status`
 * (default 400).
 */
export class EmulatorRestError extends Error {
  /** Error code, e.g. `'ERROR_NOT_FOUND'` or `'BITRIX_REST_V3_EXCEPTION_ENTITYNOTFOUNDEXCEPTION'`. */
  readonly code: string
  /** Human readable text (`error_description` / `message`). */
  readonly description: string
  /** HTTP status of the answer. */
  readonly status: number
  /** v3 only: per-field validation messages. */
  readonly validation: EmulatorValidationItem[] | undefined
  /** v2 only: the parameter at fault, sent as `argument` (as the portal does with `ERROR_ARGUMENT`). */
  readonly argument: string | undefined

  constructor(
    code: string,
    description: string,
    status = 400,
    extra?: { validation?: EmulatorValidationItem[]; argument?: string },
  ) {
    super(`${code}: ${description}`)
    this.name = 'EmulatorRestError'
    this.code = code
    this.description = description
    this.status = status
    this.validation = extra?.validation
    this.argument = extra?.argument
  }
}
