import { RedisStoreInventory } from '../store/redis-inventory.js'
import { parseCommandArgs } from './args.js'
import { type Command, flagNames, printHelp } from './command.js'
import { CommandFailure, ExitCode, UsageError } from './exit-codes.js'
import { countStates, type PortalReport, portalReport, reportTable } from './fleet-report.js'
import type { CliIo } from './io.js'
import { describeUrl, openRedis, prefixFlag, storeUrl } from './redis-url.js'
import { EXIT_CODES_HELP } from './run.js'

const HELP = `Usage: portal-oauth fleet status --store URL [flags]
       portal-oauth fleet show <member> --store URL [flags]

Shows every portal a RedisStore holds (status) or one of them (show): its state (valid, expiring, expired, dead,
uninstalled), the access token's expiry, the last refresh, the scope, and which process holds the refresh lock.
A table on a terminal, JSON otherwise; the counts per state at the end. No token and no application token is shown.

Flags:
  --store URL              the RedisStore's server: redis://[user:password@]host:port[/db] (one server)
  --prefix P               the store's key prefix (default: portal-oauth:)
  --expiring-within S      a pair expiring within S seconds counts as expiring (default: 600)
  --json                   JSON even on a terminal: { portals: [...], counts: {...} }
  --table                  a table even when stdout is no terminal
  -h, --help               this help

${EXIT_CODES_HELP}`

const FLAGS = {
  store: { type: 'string' },
  prefix: { type: 'string' },
  'expiring-within': { type: 'string' },
  json: { type: 'boolean' },
  table: { type: 'boolean' },
} as const

async function run(args: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs('fleet', args, FLAGS, 2)
  if (parsed === 'help') return printHelp({ help: HELP }, io)
  const { values, positionals } = parsed
  const [action, member] = positionals
  if (action !== 'status' && action !== 'show')
    throw new UsageError(
      `fleet: name the action, status or show${action === undefined ? '' : `, got '${action}'`}`,
    )
  if (action === 'show' && member === undefined) throw new UsageError('fleet: show needs the member id')
  if (action === 'status' && member !== undefined)
    throw new UsageError(`fleet: unexpected argument '${member}'`)
  if (values.store === undefined) throw new UsageError('fleet: --store URL is required')
  if (values.json === true && values.table === true)
    throw new UsageError('fleet: --json and --table exclude each other')
  const within = values['expiring-within'] ?? '600'
  if (!/^\d+$/.test(within))
    throw new UsageError(`fleet: --expiring-within must be a number of seconds, got '${within}'`)
  const url = storeUrl('fleet', values.store)
  const prefix = prefixFlag('fleet', values.prefix)
  const redis = await openRedis(url)
  let reports: PortalReport[]
  try {
    const inventory = new RedisStoreInventory(redis.client, prefix)
    const ids = action === 'show' ? [member!] : await inventory.memberIds()
    const portals = await Promise.all(ids.map((id) => inventory.read(id)))
    const now = Date.now()
    reports = portals
      .filter((portal) => action === 'status' || portal.pair !== null || portal.removed)
      .map((portal) => portalReport(portal, now, Number(within) * 1000))
  } finally {
    await redis.close()
  }
  if (action === 'show' && reports.length === 0)
    throw new CommandFailure(`--store ${describeUrl(url)} holds no portal ${member}`)
  const table = values.table === true || (values.json !== true && io.stdoutIsTTY)
  if (table) io.stdout.write(reportTable(reports))
  else if (action === 'show') io.stdout.write(`${JSON.stringify(reports[0])}\n`)
  else io.stdout.write(`${JSON.stringify({ portals: reports, counts: countStates(reports) })}\n`)
  return ExitCode.Ok
}

/** `portal-oauth fleet status|show`: what a RedisStore holds, portal by portal, redacted. */
export const fleetCommand: Command = {
  name: 'fleet',
  summary: 'show the portals a RedisStore holds: state, expiry, last refresh, scope, lock (redacted)',
  help: HELP,
  flags: flagNames(FLAGS),
  run,
}
