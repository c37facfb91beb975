import { readFile } from 'node:fs/promises'
import type { PortalOAuth } from '../portal-oauth.js'
import type { Result } from '../results/result.js'
import { parseCommandArgs } from './args.js'
import { type Command, flagNames, printHelp } from './command.js'
import { CREDENTIALS_HELP } from './credentials.js'
import { CommandFailure, ExitCode, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { openPortal, PORTAL_FLAG_OPTIONS, PORTAL_FLAGS_HELP, portalFlags } from './portal-source.js'
import { ListProgress } from './progress.js'
import { EXIT_CODES_HELP } from './run.js'

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

function failed(method: string, result: Result<unknown>): CommandFailure {
  return new CommandFailure(`${method}: ${result.getErrorMessages().join('; ')}`)
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
  if (!result.isSuccess) throw failed(plan.method, result)
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

async function callAll(
  portal: PortalOAuth,
  plan: CallPlan,
  keys: { idKey: string | undefined; resultKey: string | undefined },
  io: CliIo,
): Promise<void> {
  const total = io.stderrIsTTY ? await countRows(portal, plan) : undefined
  const progress = new ListProgress(io, plan.method, total)
  const rows: unknown[] = []
  const pages = portal.actions[plan.api].fetchList.make({
    method: plan.method,
    params: plan.params,
    signal: plan.signal,
    unchecked: true,
    ...(keys.idKey !== undefined && { idKey: keys.idKey }),
    ...(keys.resultKey !== undefined && { customKeyForResult: keys.resultKey }),
    ...(plan.requestId !== undefined && { requestId: plan.requestId }),
  })
  for await (const page of pages) {
    rows.push(...page)
    progress.page(page.length)
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
  const plan: CallPlan = {
    method,
    params: await readParams(paramsText),
    api,
    requestId: values['request-id'],
    signal: io.signal,
  }
  const { portal, close } = await openPortal('call', portalFlags(values), io)
  try {
    if (values.all === true)
      await callAll(portal, plan, { idKey: values['id-key'], resultKey: values['result-key'] }, io)
    else await callOnce(portal, plan, values.full === true, io)
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
