import { authenticate, stripAuthParams } from './auth.js'
import { layerErrorReply, QUERY_LIMIT_EXCEEDED, v3ErrorReply } from './envelope.js'
import { EmulatorRestError } from './errors.js'
import type { IncomingCall, Reply } from './http-server.js'
import { invokeMethod, operatingKey } from './invoke.js'
import { v3ValidationError } from './lists.js'
import type { PortalRoute } from './rest-v2.js'
import { queryParams } from './rest-v2.js'
import { V3_PREFIX, v3Body, v3MethodNotFound, v3OutcomeError, withIdempotency } from './rest-v3.js'
import type { EmulatorState } from './state.js'
import { timeBlock } from './time.js'

/** Most commands one v3 batch runs. */
export const V3_BATCH_MAX_LENGTH = 50

/** One command of a v3 batch. */
export interface V3BatchCommand {
  method: string
  query?: Record<string, unknown>
  as?: string
}

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function numericValues(record: Json): unknown[] | undefined {
  const keys = Object.keys(record).filter((key) => /^(0|[1-9]\d*)$/.test(key))
  if (keys.length === 0) return undefined
  return keys.sort((a, b) => Number(a) - Number(b)).map((key) => record[key])
}

/**
 * The accepted v3 batch bodies: a root array `[{ method, query, as? }, ...]` (token in `Authorization: Bearer` or
 * the query string), an object `{ auth?, cmd: [...] }`, or the vendor SDK's object with numeric keys
 * `{ auth?, "0": {...}, "1": {...} }`.
 */
export function readV3BatchBody(value: unknown): { commands: unknown[]; body: Json } | undefined {
  if (Array.isArray(value)) return { commands: value, body: {} }
  if (!isRecord(value)) return undefined
  if (Array.isArray(value.cmd)) return { commands: value.cmd, body: value }
  if (isRecord(value.cmd)) {
    const listed = numericValues(value.cmd)
    return listed ? { commands: listed, body: value } : undefined
  }
  const listed = numericValues(value)
  return listed ? { commands: listed, body: value } : undefined
}

function badRef(message: string): EmulatorRestError {
  return new EmulatorRestError(`${V3_PREFIX}INVALIDSELECTEXCEPTION`, message)
}

function walk(node: unknown, path: string[]): unknown {
  let current = node
  for (const segment of path) {
    if (Array.isArray(current)) current = current[Number(segment)]
    else if (isRecord(current)) current = current[segment]
    else return undefined
  }
  return current
}

function aliasValue(
  reference: string,
  aliases: Map<string, unknown>,
  results: unknown[],
): [unknown, string[]] {
  const [alias = '', ...path] = reference.split('.')
  if (aliases.has(alias)) return [aliases.get(alias), path]
  if (/^\d+$/.test(alias) && Number(alias) < results.length) return [results[Number(alias)], path]
  throw badRef(`Unknown batch alias \`${alias}\``)
}

/**
 * Replace `{ "$ref": "alias.path" }` with the value at that path of an earlier result (by `as` alias or index) and
 * `{ "$refArray": "alias.field" }` with that field of every item of the earlier list (`result.items` or an array).
 */
export function resolveRefs(value: unknown, aliases: Map<string, unknown>, results: unknown[]): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, aliases, results))
  if (!isRecord(value)) return value
  const keys = Object.keys(value)
  if (keys.length === 1 && typeof value.$ref === 'string') {
    const [base, path] = aliasValue(value.$ref, aliases, results)
    return walk(base, path) ?? null
  }
  if (keys.length === 1 && typeof value.$refArray === 'string') {
    const [base, path] = aliasValue(value.$refArray, aliases, results)
    const field = path.pop()
    const node = walk(base, path)
    const list = Array.isArray(node)
      ? node
      : isRecord(node) && Array.isArray(node.items)
        ? node.items
        : undefined
    if (!list || field === undefined) throw badRef(`\`${value.$refArray}\` does not point to a list field`)
    return list.map((item) => walk(item, [field]) ?? null)
  }
  const out: Json = {}
  for (const key of keys) out[key] = resolveRefs(value[key], aliases, results)
  return out
}

function readCommand(item: unknown, index: number): V3BatchCommand {
  if (!isRecord(item) || typeof item.method !== 'string' || item.method === '') {
    throw new EmulatorRestError(
      `${V3_PREFIX}INVALIDSELECTEXCEPTION`,
      `Batch command ${index} must be an object { method, query }`,
    )
  }
  if (item.query !== undefined && !isRecord(item.query))
    throw v3ValidationError('query', `Batch command ${index}: query must be an object`)
  if (item.as !== undefined && typeof item.as !== 'string')
    throw v3ValidationError('as', `Batch command ${index}: as must be a string`)
  const command: V3BatchCommand = { method: item.method }
  if (isRecord(item.query)) command.query = item.query
  if (typeof item.as === 'string') command.as = item.as
  return command
}

/**
 * `/rest/api/batch` (v3): up to 50 commands run in order, all-or-nothing: the first failing command's error is the
 * answer (earlier side effects stay). Success `{ result: [r1, r2, ...], time }`. One request in the leaky bucket.
 */
export async function handleV3Batch(
  state: EmulatorState,
  call: IncomingCall,
  route: PortalRoute,
): Promise<Reply> {
  const parsed = v3Body(call)
  if ('reply' in parsed) return parsed.reply
  const batch = readV3BatchBody(parsed.value)
  if (!batch) {
    return v3ErrorReply(
      400,
      `${V3_PREFIX}INVALIDSELECTEXCEPTION`,
      'Batch body must be an array of { method, query } or { cmd: [...] }',
    )
  }
  const auth = authenticate(state, call, { body: batch.body, query: queryParams(call) }, route.hook)
  if ('error' in auth) return layerErrorReply(auth.error)
  if (!state.bucket.tryTake(state.now())) return layerErrorReply(QUERY_LIMIT_EXCEEDED)
  return withIdempotency(state, call, auth.caller, 'batch', batch.commands, async () => {
    const results: unknown[] = []
    const aliases = new Map<string, unknown>()
    let processingMs = 0
    try {
      if (batch.commands.length > V3_BATCH_MAX_LENGTH) {
        throw v3ValidationError('batch', `Max batch length exceeded (${V3_BATCH_MAX_LENGTH})`)
      }
      const commands = batch.commands.map(readCommand)
      for (const command of commands) {
        const name = command.method.toLowerCase()
        if (name === 'batch') throw v3ValidationError('method', 'Nested batch is not allowed')
        const method = await state.methods.resolve(name, 'v3')
        if (!method) return v3MethodNotFound()
        const query = stripAuthParams(resolveRefs(command.query ?? {}, aliases, results) as Json)
        const outcome = await invokeMethod(state, method, query, auth.caller, 'v3')
        if (!outcome.ok) return v3OutcomeError(outcome.error)
        processingMs += outcome.processingMs
        results.push(outcome.result)
        if (command.as !== undefined) aliases.set(command.as, outcome.result)
      }
    } catch (error) {
      if (error instanceof EmulatorRestError) return v3OutcomeError(error)
      throw error
    }
    const operating = state.operating.state(operatingKey(auth.caller, 'batch'), state.now())
    return { status: 200, body: { result: results, time: timeBlock(call.watch, processingMs, operating) } }
  })
}
