import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'

/**
 * Validation rules for options and arguments. Each `require*` function checks one value and either returns it
 * (narrowed) or throws an `SdkError` with code `JSSDK_INVALID_ARGUMENT` whose message is `${field} ${rule}`: the
 * field as the caller knows it (with any prefix, such as `v2 call: timeout` or `restrictionParams.retryDelay`) and
 * the rule it broke, including any bound. A value that may hold a secret (a header value, a URL) is never echoed.
 */

/** The longest delay a timer can hold, ms (2^31-1, about 24.8 days); a longer one fires at once. */
export const TIMER_MAX_MS = 2_147_483_647

/** Longest timeout of one request attempt a user can mean: 10 minutes (the portal stops a request at 60 s). */
export const MAX_REQUEST_TIMEOUT_MS = 600_000

/** Longest pause between retries a user can mean: 5 minutes. */
export const MAX_RETRY_DELAY_MS = 300_000

/** Most retries of one request: more only hammers a portal that is already refusing. */
export const MAX_RETRIES = 10

/** The error every rule throws: `${field} ${rule}`, code `JSSDK_INVALID_ARGUMENT`. */
export function invalidArgument(field: string, rule: string): SdkError {
  return new SdkError({ code: SdkErrorCode.InvalidArgument, message: `${field} ${rule}` })
}

/** `value` described for a message without echoing it: its type, or that it is missing or empty. */
export function describeKind(value: unknown): string {
  if (value === undefined) return 'it is missing'
  if (value === null) return 'got null'
  if (value === '') return 'it is empty'
  if (Array.isArray(value)) return 'got an array'
  return `got ${typeof value}`
}

/** Whether `value` is an object literal (or `Object.create(null)`), not an array, a class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Requires a plain object (see {@link isPlainObject}); `shape` says what it should hold, e.g. `{ method, params }`. */
export function requirePlainObject(field: string, value: unknown, shape = ''): Record<string, unknown> {
  if (!isPlainObject(value))
    throw invalidArgument(field, `must be an object${shape ? ` like ${shape}` : ''}; ${describeKind(value)}`)
  return value
}

/** `value` when it is a non-empty string, `fallback` when it is undefined; throws otherwise. */
export function stringOption(field: string, value: unknown, fallback: string): string
export function stringOption(field: string, value: unknown, fallback: undefined): string | undefined
export function stringOption(
  field: string,
  value: unknown,
  fallback: string | undefined,
): string | undefined {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidArgument(field, `must be a non-empty string, got ${JSON.stringify(value) ?? typeof value}`)
  return value
}

/** Requires a boolean. */
export function requireBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalidArgument(field, `must be a boolean; ${describeKind(value)}`)
  return value
}

/** `ms` in the largest whole unit that divides it, for messages: `600000` gives `10 minutes`. */
export function humanMs(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ]
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const count = ms / size
      return `${count} ${name}${count === 1 ? '' : 's'}`
    }
  }
  return `${ms} ms`
}

/** Options of {@link requireIntegerIn}. */
export interface IntegerRuleOptions {
  /** `'ms'` for a duration: the message then gives the bounds in ms and the upper one in words too. */
  unit?: 'ms'
}

/**
 * Requires an integer from `min` to `max` (both included). For durations (`unit: 'ms'`) keep `max` at most
 * {@link TIMER_MAX_MS}, and lower where a longer value cannot be what the user means.
 */
export function requireIntegerIn(
  field: string,
  value: unknown,
  min: number,
  max: number,
  options: IntegerRuleOptions = {},
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const unit = options.unit === 'ms' ? ` ms (${humanMs(max)})` : ''
    const bounds = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}${unit}`
    const got = typeof value === 'number' ? `got ${String(value)}` : describeKind(value)
    throw invalidArgument(field, `must be an integer ${bounds}, ${got}`)
  }
  return value
}

/** Requires a finite number from `min` to `max` (both included; `max` may be `Infinity`). */
export function requireNumberIn(
  field: string,
  value: unknown,
  min: number,
  max = Number.POSITIVE_INFINITY,
): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw invalidArgument(
      field,
      `must be a finite number, ${typeof value === 'number' ? `got ${value}` : describeKind(value)}`,
    )
  if (value < min || value > max) {
    const bounds = max === Number.POSITIVE_INFINITY ? `at least ${min}` : `between ${min} and ${max}`
    throw invalidArgument(field, `must be ${bounds}, got ${value}`)
  }
  return value
}

/** An HTTP field name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** The first character not allowed in an HTTP field value: controls other than HTAB, DEL, above U+00FF. */
const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/** Requires an HTTP header name (an RFC 9110 token). The field is `${group}[name]` so that a bad name shows escaped. */
export function requireHeaderName(group: string, name: string): string {
  if (!TOKEN.test(name)) {
    throw invalidArgument(
      `${group}[${JSON.stringify(name)}]`,
      "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only",
    )
  }
  return name
}

/**
 * Requires a string that can travel as an HTTP header value: no CR, LF, NUL or other control character (a tab is
 * fine), nothing above U+00FF. The value is never echoed (a header may carry a secret); the message shows the first
 * offending character's code point and position.
 */
export function requireHeaderValue(field: string, value: unknown): string {
  if (typeof value !== 'string') throw invalidArgument(field, `must be a string; ${describeKind(value)}`)
  const match = NOT_FIELD_VALUE.exec(value)
  if (match) {
    const codePoint = match[0].codePointAt(0) ?? 0
    const hex = codePoint.toString(16).toUpperCase().padStart(4, '0')
    throw invalidArgument(
      field,
      `must not contain CR, LF, NUL or other control characters, nor characters above U+00FF (found U+${hex} at position ${match.index})`,
    )
  }
  return value
}

/** Requires an object of header names to header values (see {@link requireHeaderName}, {@link requireHeaderValue}). */
export function requireHeaders(field: string, value: unknown): Record<string, string> {
  const headers = requirePlainObject(field, value, "{ 'x-name': 'value' }")
  for (const name of Object.keys(headers)) {
    requireHeaderName(field, name)
    requireHeaderValue(`${field}.${name}`, headers[name])
  }
  return headers as Record<string, string>
}

/** Requires a parsed URL without `user:password@`; says so without echoing the URL, which would show them. */
export function requireNoCredentials(field: string, url: URL): URL {
  if (url.username !== '' || url.password !== '') {
    throw invalidArgument(field, 'must not carry user credentials (user:password@); remove them from the URL')
  }
  return url
}

/** Whether `hostname` (as `URL.hostname` gives it) is this machine: `localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/** Whether `url` goes over plain http to another machine, where whatever it carries can be read on the way. */
export function isRemotePlainHttp(url: URL): boolean {
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname)
}

/**
 * Names of keys of `value` that `known` does not list, for the "dropped unknown option(s)" warning. `groups` maps a
 * key whose value is an object of its own to the keys that object knows; unknown keys inside it come back as
 * `group.key`.
 */
export function unknownKeys(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  groups: Readonly<Record<string, ReadonlySet<string>>> = {},
): string[] {
  const names: string[] = []
  for (const key of Object.keys(value)) {
    if (!known.has(key)) {
      names.push(key)
      continue
    }
    const groupKeys = groups[key]
    const group = value[key]
    if (groupKeys && isPlainObject(group)) {
      for (const inner of Object.keys(group)) if (!groupKeys.has(inner)) names.push(`${key}.${inner}`)
    }
  }
  return names
}
