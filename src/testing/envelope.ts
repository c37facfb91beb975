import type { EmulatorRestError, EmulatorValidationItem } from './errors.js'
import { jsonReply, type Reply } from './http-server.js'
import type { EmulatorListNav } from './list-page.js'
import type { RestTimeBlock } from './time.js'

/** An error raised before a method runs (auth, rate and operating limits), rendered flat on v2 and v3 alike. */
export interface LayerError {
  status: number
  code: string
  description: string
}

/** 404 for an unknown v2 method (answered even without auth). */
export const METHOD_NOT_FOUND: LayerError = {
  status: 404,
  code: 'ERROR_METHOD_NOT_FOUND',
  description: 'Method not found!',
}

/** 503 when the leaky bucket is full. */
export const QUERY_LIMIT_EXCEEDED: LayerError = {
  status: 503,
  code: 'QUERY_LIMIT_EXCEEDED',
  description: 'Too many requests',
}

/** 429 when a method's operating budget is used up. */
export const OPERATION_TIME_LIMIT: LayerError = {
  status: 429,
  code: 'OPERATION_TIME_LIMIT',
  description: 'Method is blocked due to operation time limit.',
}

/** v2 error body `{ error, error_description }`. */
export function flatError(status: number, code: string, description: string): Reply {
  return jsonReply(status, { error: code, error_description: description }, code)
}

/** A layer error in the flat v2 shape (also used on v3: the real v3 shape of these errors is undocumented). */
export function layerErrorReply(error: LayerError): Reply {
  return flatError(error.status, error.code, error.description)
}

/** The v2 error object of a method error: `{ error, error_description, argument? }` (protocol.md 3.2). */
export function v2ErrorBody(error: EmulatorRestError): Record<string, string> {
  const body = { error: error.code, error_description: error.description }
  return error.argument === undefined ? body : { ...body, argument: error.argument }
}

/** v2 answer of a method error. */
export function v2ErrorReply(error: EmulatorRestError): Reply {
  return jsonReply(error.status, v2ErrorBody(error), error.code)
}

/** v3 error body `{ error: { code, message, validation? } }`. */
export function v3ErrorReply(
  status: number,
  code: string,
  message: string,
  validation?: EmulatorValidationItem[],
): Reply {
  const error = validation === undefined ? { code, message } : { code, message, validation }
  return jsonReply(status, { error }, code)
}

/** v3 answer of a method error. */
export function v3MethodErrorReply(error: EmulatorRestError): Reply {
  return v3ErrorReply(error.status, error.code, error.description, error.validation)
}

/** v2 success `{ result, next?, total?, time }`. */
export function v2SuccessBody(
  result: unknown,
  nav: EmulatorListNav,
  time: RestTimeBlock,
): Record<string, unknown> {
  const body: Record<string, unknown> = { result }
  if (nav.next !== undefined) body.next = Math.trunc(nav.next)
  if (nav.total !== undefined) body.total = Math.trunc(nav.total)
  body.time = time
  return body
}
