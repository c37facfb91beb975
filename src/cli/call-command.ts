import { readFile } from 'node:fs/promises'
import { ListPageError } from '../actions/list/list-page-error.js'
import type { PortalOAuth } from '../portal-oauth.js'
import type { Result } from '../results/result.js'
import { requireHeaderValue } from '../validation/rules.js'
import { parseCommandArgs } from './args.js'
import { type Command, flagNames, printHelp } from './command.js'
import { CREDENTIALS_HELP } from './credentials.js'
import { CommandFailure, ExitCode, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { similarMethods } from './method-names.js'
import { openPortal, PORTAL_FLAG_OPTIONS, PORTAL_FLAGS_HELP, portalFlags } from './portal-source.js'
import { ListProgress } from './progress.js'
import { EXIT_CODES_HELP } from './run.js'
import { inShellWords } from './shell-errors.js'

const HELP = `Usage: portal-oauth call <method> [params] (--pair FILE | --store URL --member ID) [flags]

Makes one REST call with the library's pacing, refresh and persistence, and prints its result as JSON on stdout.
params is a JSON object, or @FILE to read it from a file. A REST error is printed on stderr (exit 1).

Flags:
${PORTAL_FLAGS_HELP}
  --api v2|v3              REST API version (default: v2)
  --all                    walk a list method page by page and print every row as one JSON array; a progress bar
                           on stderr when it is a terminal, the row count otherwise
  --id-key KEY             with --all: the id field of a row (default: ID on v2, id on v3)
  --result-key KEY         with --all: the key of the rows in result (crm.item.list: items; v3 default: items)
  --full                   print the whole answer (result, time, next, total), not only result
  --request-id ID          the X-Request-Id label of the call
${CREDENTIALS_HELP}
  -h, --help               this help

The pair's OAuth server must be trusted: the vendor's by default, others through PORTAL_OAUTH_TRUSTED_SERVERS.

${EXIT_CODES_HELP}`

const FLAGS = {
  ...PORTAL_FLAG_OPTIONS,
  api: { type: 'string' },
  all: { type: 'boolean' },
  'id-key': { type: 'string' },
  'result-key': { type: 'string' },
  full: { type: 'boolean' },
  'request-id': { type: 'string' },
} as const

/** `--request-id`: it travels as the `X-Request-Id` header, so no line break or other control character. */
function requestIdFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  try {
    return requireHeaderValue('--request-id', value)
  } catch (error) {
    throw new UsageError(`call: ${(error as Error).message}`)
  }
}

async function readParams(text: string | undefined): Promise<Record<string, unknown>> {
  if (text === undefined) return {}
  let source = text
  if (text.startsWith('@')) {
    try {
      source = await readFile(text.slice(1), 'utf8')
    } catch (error) {
      throw new CommandFailure(`params ${text}: cannot read it (${(error as NodeJS.ErrnoException).code})`)
    }
  }
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch {
    throw new UsageError(`call: params must be a JSON object such as '{"ID": 1}', got text that is not JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`call: params must be a JSON object such as '{"ID": 1}'`)
  return value as Record<string, unknown>
}

function print(io: CliIo, value: unknown): void {
  io.stdout.write(`${io.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`)
}

/**
 * A REST error as one line: the portal's message and code for each error, and for a method the portal does not know
 * the catalogue's names closest to it.
 */
async function failed(plan: CallPlan, result: Result<unknown>): Promise<CommandFailure> {
  const errors = result.getErrors().map((error) => `${inShellWords(error.message)} (${error.code})`)
  const unknown = result.getErrors().some((error) => error.code === 'ERROR_METHOD_NOT_FOUND')
  const similar = unknown ? await similarMethods(plan.method, plan.api) : []
  const hint = similar.length > 0 ? `; did you mean ${similar.join(' or ')}?` : ''
  return new CommandFailure(`${plan.method}: ${errors.join('; ')}${hint}`)
}

interface CallPlan {
  method: string
  params: Record<string, unknown>
  api: 'v2' | 'v3'
  requestId: string | undefined
  signal: AbortSignal
}

async function callOnce(portal: PortalOAuth, plan: CallPlan, full: boolean, io: CliIo): Promise<void> {
  const result = await portal.actions[plan.api].call.make({
    method: plan.method,
    params: plan.params,
    signal: plan.signal,
    unchecked: true,
    ...(plan.requestId !== undefined && { requestId: plan.requestId }),
  })
  if (!result.isSuccess) throw await failed(plan, result)
  const answer = result.getData() as { result?: unknown } | undefined
  print(io, full ? answer : answer?.result)
}

/** The row count a v2 list tells on its first page, for the progress bar (one request more, on a terminal only). */
async function countRows(portal: PortalOAuth, plan: CallPlan): Promise<number | undefined> {
  if (plan.api !== 'v2') return undefined
  const first = await portal.actions.v2.call.make({
    method: plan.method,
    params: { ...plan.params, start: 0 },
    signal: plan.signal,
    unchecked: true,
  })
  return first.isSuccess ? first.getTotal() : undefined
}

/** Whether `method` is a v3 keyset method (`main.eventlog.tail`), paged by its cursor rather than by ids. */
function isTail(plan: CallPlan): boolean {
  return plan.api === 'v3' && plan.method.endsWith('.tail')
}

/** The pages of the list `plan` names: `fetchTail` for a v3 `*.tail` method, `fetchList` for any other. */
function listPages(portal: PortalOAuth, plan: CallPlan, keys: ListKeys): AsyncIterable<unknown[]> {
  const common = {
    method: plan.method,
    params: plan.params,
    signal: plan.signal,
    unchecked: true,
    ...(keys.resultKey !== undefined && { customKeyForResult: keys.resultKey }),
    ...(plan.requestId !== undefined && { requestId: plan.requestId }),
  } as const
  if (isTail(plan))
    return portal.actions.v3.fetchTail.make({
      ...common,
      ...(keys.idKey !== undefined && { cursor: { field: keys.idKey } }),
    })
  return portal.actions[plan.api].fetchList.make({
    ...common,
    ...(keys.idKey !== undefined && { idKey: keys.idKey }),
  })
}

/** The flags that say where a list's rows and ids are. */
interface ListKeys {
  idKey: string | undefined
  resultKey: string | undefined
}

/** Walks the list to its end and prints every row; on a failure, the rows read before it, then the failure. */
async function callAll(portal: PortalOAuth, plan: CallPlan, keys: ListKeys, io: CliIo): Promise<void> {
  const total = io.stderrIsTTY && !isTail(plan) ? await countRows(portal, plan) : undefined
  const progress = new ListProgress(io, plan.method, total)
  const rows: unknown[] = []
  try {
    for await (const page of listPages(portal, plan, keys)) {
      rows.push(...page)
      progress.page(page.length)
    }
  } catch (error) {
    // What was read is not lost: a script keeps the rows before the failure, and the exit code tells it failed.
    if (rows.length > 0) print(io, rows)
    if (error instanceof ListPageError && error.portalErrors.length > 0)
      throw new CommandFailure(
        `${plan.method}: page ${error.page} failed after ${rows.length} rows: ${error.portalErrors.map((e) => `${e.message} (${e.code})`).join('; ')}`,
      )
    throw error
  }
  progress.done()
  print(io, rows)
}

async function run(args: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs('call', args, FLAGS, 2)
  if (parsed === 'help') return printHelp({ help: HELP }, io)
  const { values, positionals } = parsed
  const [method, paramsText] = positionals
  if (method === undefined)
    throw new UsageError('call: the method is missing (portal-oauth call <method> [params])')
  const api = values.api ?? 'v2'
  if (api !== 'v2' && api !== 'v3') throw new UsageError(`call: --api must be v2 or v3, got '${api}'`)
  if (values.all !== true && (values['id-key'] !== undefined || values['result-key'] !== undefined))
    throw new UsageError('call: --id-key and --result-key go with --all')
  const requestId = requestIdFlag(values['request-id'])
  const params = await readParams(paramsText)
  const { portal, signal, explain, close } = await openPortal('call', portalFlags(values), io)
  const plan: CallPlan = { method, params, api, requestId, signal }
  try {
    if (values.all === true)
      await callAll(portal, plan, { idKey: values['id-key'], resultKey: values['result-key'] }, io)
    else await callOnce(portal, plan, values.full === true, io)
  } catch (error) {
    throw explain(error)
  } finally {
    await close()
  }
  return ExitCode.Ok
}

/** `portal-oauth call`: one REST call (or a whole list) from the shell, with refresh and persistence. */
export const callCommand: Command = {
  name: 'call',
  summary: 'make one REST call (or walk a list with --all) and print the result as JSON',
  help: HELP,
  flags: flagNames(FLAGS),
  run,
}
