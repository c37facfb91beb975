import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'

/** An `SdkError` for a bad option of an action, naming the action and the field. */
export function invalidArgument(where: string, field: string, problem: string): SdkError {
  return new SdkError({ code: SdkErrorCode.InvalidArgument, message: `${where}: ${field} ${problem}` })
}

/** Whether `value` is a plain object (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** `value` when it is a non-empty string, `fallback` when undefined; throws otherwise. */
export function stringOption(value: unknown, fallback: string, where: string, field: string): string
export function stringOption(
  value: unknown,
  fallback: undefined,
  where: string,
  field: string,
): string | undefined
export function stringOption(
  value: unknown,
  fallback: string | undefined,
  where: string,
  field: string,
): string | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalidArgument(
      where,
      field,
      `must be a non-empty string, got ${JSON.stringify(value) ?? typeof value}`,
    )
  }
  return value
}
