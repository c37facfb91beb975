import type { IncomingMessage } from 'node:http'

/** Largest request body the control API reads. */
const MAX_BODY_BYTES = 1 << 20

/** A request the control API refuses, with the HTTP status to answer. */
export class ControlError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.name = 'ControlError'
    this.status = status
  }
}

/** The request's JSON body as an object; an empty body is `{}`. */
export async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new ControlError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (text === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ControlError(400, 'the body is not JSON')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ControlError(400, 'the body must be a JSON object')
  return value as Record<string, unknown>
}

/** Field readers that name the field at fault. */
export const field = {
  /** An optional non-negative integer. */
  count(body: Record<string, unknown>, name: string): number | undefined {
    const value = body[name]
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      throw new ControlError(400, `${name} must be a non-negative integer`)
    return value
  },
  /** An optional string. */
  string(body: Record<string, unknown>, name: string): string | undefined {
    const value = body[name]
    if (value === undefined) return undefined
    if (typeof value !== 'string') throw new ControlError(400, `${name} must be a string`)
    return value
  },
  /** A required string. */
  requiredString(body: Record<string, unknown>, name: string): string {
    const value = field.string(body, name)
    if (value === undefined || value === '') throw new ControlError(400, `${name} is required`)
    return value
  },
  /** An optional boolean. */
  boolean(body: Record<string, unknown>, name: string): boolean | undefined {
    const value = body[name]
    if (value === undefined) return undefined
    if (typeof value !== 'boolean') throw new ControlError(400, `${name} must be true or false`)
    return value
  },
  /** An optional plain object. */
  object(body: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
    const value = body[name]
    if (value === undefined) return undefined
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new ControlError(400, `${name} must be a JSON object`)
    return value as Record<string, unknown>
  },
}

/**
 * Refuses a key of `object` that `known` does not list, naming it and what `where` takes: a misspelt field
 * (`expiresin`) would otherwise be ignored and the control do something else than asked.
 */
export function refuseUnknownKeys(
  object: Record<string, unknown> | URLSearchParams,
  known: readonly string[],
  where: string,
): void {
  const keys = object instanceof URLSearchParams ? [...object.keys()] : Object.keys(object)
  const unknown = keys.find((key) => !known.includes(key))
  if (unknown === undefined) return
  const takes = known.length === 0 ? 'takes none' : `takes ${known.join(', ')}`
  throw new ControlError(400, `unknown field ${unknown}: ${where} ${takes}`)
}
