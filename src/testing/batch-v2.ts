import { authenticate, stripAuthParams } from './auth.js'
import { layerErrorReply, QUERY_LIMIT_EXCEEDED, v2ErrorBody } from './envelope.js'
import type { IncomingCall, Reply } from './http-server.js'
import { invokeMethod, operatingKey } from './invoke.js'
import { parsePhpQuery, phpBool, phpMap } from './php-query.js'
import { type PortalRoute, v2Sources } from './rest-v2.js'
import type { EmulatorState } from './state.js'
import { Stopwatch, timeBlock } from './time.js'

/** Most commands one batch runs (`CRestUtil::BATCH_MAX_LENGTH`). */
export const BATCH_MAX_LENGTH = 50

/** Methods that cannot run inside a batch. */
export const BATCH_FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['batch', 'download', 'upload'])

type Entries = Array<[string, unknown]>

const REFERENCE = /\$(result|result_error)((?:\[[^\]]*\])+)/g

function lookupReference(kind: string, brackets: string, results: Entries, errors: Entries): unknown {
  const path = [...brackets.matchAll(/\[([^\]]*)\]/g)].map((match) => match[1] ?? '')
  const [key, ...rest] = path
  const source = kind === 'result' ? results : errors
  let node: unknown = source.find(([name]) => name === key)?.[1]
  for (const segment of rest) {
    if (Array.isArray(node)) node = node[Number(segment)]
    else if (typeof node === 'object' && node !== null) node = (node as Record<string, unknown>)[segment]
    else return undefined
  }
  return node
}

function scalarText(value: unknown): string {
  if (value === undefined || value === null || typeof value === 'object') return ''
  if (value === true) return '1'
  if (value === false) return ''
  return String(value)
}

/**
 * Replace `$result[cmd][field][0]...` (and `$result_error[...]`) references in a decoded parameter value: a value
 * that is exactly one reference takes the referenced value itself (arrays included), otherwise references are
 * replaced by their text.
 */
export function substituteReferences(value: string, results: Entries, errors: Entries): unknown {
  if (!value.includes('$result')) return value
  const whole = /^\$(result|result_error)((?:\[[^\]]*\])+)$/.exec(value)
  if (whole) {
    const found = lookupReference(whole[1] ?? '', whole[2] ?? '', results, errors)
    return found === undefined || found === null ? '' : found
  }
  return value.replace(REFERENCE, (_match, kind: string, brackets: string) =>
    scalarText(lookupReference(kind, brackets, results, errors)),
  )
}

function commandList(cmd: unknown): Entries {
  if (Array.isArray(cmd)) return cmd.map((value, index) => [String(index), value])
  if (typeof cmd === 'object' && cmd !== null) return Object.entries(cmd)
  return []
}

function subError(code: string, description: string): Record<string, string> {
  return { error: code, error_description: description }
}

/**
 * `/rest/batch` (v2): `cmd` map or list of `"method?query"` strings (JSON or form body, query string also read),
 * `halt` PHP-bool. One request in the leaky bucket; each command runs through its method's handler and operating
 * budget in order. Commands beyond 50 get `ERROR_BATCH_LENGTH_EXCEEDED` each. Answer (always 200 when authorised):
 * `{ result: { result, result_error, result_total, result_next, result_time }, time }`, empty maps as `[]`.
 */
export async function handleV2Batch(
  state: EmulatorState,
  call: IncomingCall,
  route: PortalRoute,
): Promise<Reply> {
  const sources = v2Sources(call)
  const auth = authenticate(state, call, sources, route.hook)
  if ('error' in auth) return layerErrorReply(auth.error)
  if (!state.bucket.tryTake(state.now())) return layerErrorReply(QUERY_LIMIT_EXCEEDED)
  const { caller } = auth
  const params = stripAuthParams({ ...sources.query, ...sources.body })
  const halt = phpBool(params.halt)
  const results: Entries = []
  const errors: Entries = []
  const totals: Entries = []
  const nexts: Entries = []
  const times: Entries = []
  let processingMs = 0
  let count = 0
  for (const [key, command] of commandList(params.cmd)) {
    count += 1
    const error = await runCommand(key, command)
    if (error && halt) break
  }

  async function runCommand(key: string, command: unknown): Promise<boolean> {
    if (count > BATCH_MAX_LENGTH) {
      errors.push([key, subError('ERROR_BATCH_LENGTH_EXCEEDED', 'Max batch length exceeded')])
      return true
    }
    const text = typeof command === 'string' ? command : String(command)
    const mark = text.indexOf('?')
    const path = (mark < 0 ? text : text.slice(0, mark))
      .trim()
      .toLowerCase()
      .replace(/\.json$/, '')
    const query = mark < 0 ? '' : text.slice(mark + 1)
    if (BATCH_FORBIDDEN_METHODS.has(path)) {
      errors.push([key, subError('ERROR_BATCH_METHOD_NOT_ALLOWED', 'Method is not allowed for batch usage')])
      return true
    }
    const method = await state.methods.resolve(path, 'v2')
    if (!method) {
      errors.push([key, subError('ERROR_METHOD_NOT_FOUND', 'Method not found!')])
      return true
    }
    const subParams = stripAuthParams(
      parsePhpQuery(query, (value) => substituteReferences(value, results, errors)),
    )
    const watch = new Stopwatch(state.now)
    const outcome = await invokeMethod(state, method, subParams, caller, 'v2')
    if (!outcome.ok) {
      errors.push([key, v2ErrorBody(outcome.error)])
      return true
    }
    processingMs += outcome.processingMs
    results.push([key, outcome.result])
    if (outcome.nav.total !== undefined) totals.push([key, Math.trunc(outcome.nav.total)])
    if (outcome.nav.next !== undefined) nexts.push([key, Math.trunc(outcome.nav.next)])
    times.push([key, timeBlock(watch, outcome.processingMs)])
    return false
  }

  const operating = state.operating.state(operatingKey(caller, 'batch'), state.now())
  return {
    status: 200,
    body: {
      result: {
        result: phpMap(results),
        result_error: phpMap(errors),
        result_total: phpMap(totals),
        result_next: phpMap(nexts),
        result_time: phpMap(times),
      },
      time: timeBlock(call.watch, processingMs, operating),
    },
  }
}
