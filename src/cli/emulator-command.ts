import { readFile } from 'node:fs/promises'
import { type PortalEmulatorOptions, startPortalEmulator } from '../testing/index.js'
import { DEFAULT_SCOPE } from '../testing/state.js'
import { parseCommandArgs, portFlag } from './args.js'
import { type Command, flagNames, printHelp } from './command.js'
import { startEmulatorControl } from './emulator-control.js'
import { CommandFailure, ExitCode, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { EXIT_CODES_HELP } from './run.js'

const HELP = `Usage: portal-oauth emulator [flags]

Runs the loopback portal emulator (a portal's REST v2 and v3, batches, webhooks, limits) and its OAuth server as a
standalone server, for tests in any language, until SIGINT or SIGTERM (then exits 0); started by npm (npx,
npm exec, npm run), also when npm ends, since npm does not pass SIGTERM on.

Flags:
  --port N                 portal port on 127.0.0.1 (default: a free port)
  --oauth-port N           OAuth server port on 127.0.0.1 (default: a free port)
  --control-port N         control API port on 127.0.0.1 (default: a free port)
  --json                   print one JSON line first: clientEndpoint, serverEndpoint, tokenUrl, oauthServer,
                           controlEndpoint, clientId, clientSecret, memberId, applicationToken and pair (a
                           PortalOAuthParams for new PortalOAuth(pair, { clientId, clientSecret }))
  --client-id ID           OAuth client id the emulator accepts
  --client-secret-file F   read the client secret the emulator accepts from F (default: a random one)
  --scope LIST             scope of the pairs it issues (default: ${DEFAULT_SCOPE})
  --access-token-ttl S     access token lifetime in seconds (default: 3600)
  --list-rows N            rows of every built-in list (crm.item.list, user.get, ...; default: 120)
  --unlimited              switch the leaky bucket and the operating limit off
  -h, --help               this help

The control API (JSON over HTTP on 127.0.0.1, see docs/cli.md): GET /info, POST /pair, POST /expire-tokens,
POST /fail-refresh, POST /fail-token-requests, POST /drop-connections, POST /delay-requests, POST /hold-requests,
POST /wait-for-held, POST /release-held, POST /mutate-token-responses, DELETE /faults,
GET /log, DELETE /log, GET /tokens, PUT /methods/<name>, PUT /settings, POST /install-events, POST /webhooks,
POST /authorization-codes.

Clients in other processes send the client secret only to trusted OAuth servers: set
PORTAL_OAUTH_TRUSTED_SERVERS to the printed oauthServer.

${EXIT_CODES_HELP}`

const FLAGS = {
  port: { type: 'string' },
  'oauth-port': { type: 'string' },
  'control-port': { type: 'string' },
  json: { type: 'boolean' },
  'client-id': { type: 'string' },
  'client-secret-file': { type: 'string' },
  scope: { type: 'string' },
  'access-token-ttl': { type: 'string' },
  'list-rows': { type: 'string' },
  unlimited: { type: 'boolean' },
} as const

function count(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value))
    throw new UsageError(`emulator: --${flag} must be a non-negative integer, got '${value}'`)
  return Number(value)
}

async function secretFromFile(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new CommandFailure(
      `--client-secret-file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    )
  }
  const secret = text.trim()
  if (secret === '') throw new CommandFailure(`--client-secret-file ${path}: the file is empty`)
  return secret
}

/** How often the emulator looks whether the process that started it is still there, ms. */
const PARENT_CHECK_MS = 250

/**
 * Resolves when `signal` aborts, or, under npm (`npx`, `npm exec`, `npm run`: `npm_command` is set), when the process
 * that started this one ends and this one is handed to another parent: npm does not pass SIGTERM on, so
 * `npx portal-oauth emulator &` then `kill %1` ends npm alone. Started otherwise, the emulator runs on without its
 * parent (`(portal-oauth emulator &)`, nohup) until a signal stops it.
 */
function stopped(signal: AbortSignal, env: NodeJS.ProcessEnv): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  const parent = process.ppid
  return new Promise((resolve) => {
    const orphaned =
      env.npm_command === undefined
        ? undefined
        : setInterval(() => {
            if (process.ppid !== parent) done()
          }, PARENT_CHECK_MS)
    const done = (): void => {
      clearInterval(orphaned)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

async function run(args: string[], io: CliIo): Promise<ExitCode> {
  const parsed = parseCommandArgs('emulator', args, FLAGS, 0)
  if (parsed === 'help') return printHelp({ help: HELP }, io)
  const { values } = parsed
  const rows = count('list-rows', values['list-rows'])
  const ttl = count('access-token-ttl', values['access-token-ttl'])
  const port = portFlag('emulator', 'port', values.port)
  const oauthPort = portFlag('emulator', 'oauth-port', values['oauth-port'])
  const controlPort = portFlag('emulator', 'control-port', values['control-port']) ?? 0
  const clientSecret = await secretFromFile(values['client-secret-file'])
  const options: PortalEmulatorOptions = {
    ...(port !== undefined && { port }),
    ...(oauthPort !== undefined && { oauthPort }),
    ...(values['client-id'] !== undefined && { clientId: values['client-id'] }),
    ...(clientSecret !== undefined && { clientSecret }),
    ...(values.scope !== undefined && { scope: values.scope }),
    ...(ttl !== undefined && { accessTokenTtl: ttl }),
    ...(values.unlimited === true && { rateLimit: false, operatingLimit: false }),
    ...(rows !== undefined && {
      lists: Object.fromEntries(
        [
          'crm.item.list',
          'user.get',
          'tasks.task.list',
          'main.eventlog.tail',
          'crm.contact.list',
          'crm.deal.list',
        ].map((list) => [list, rows]),
      ),
    }),
  }
  let emulator: Awaited<ReturnType<typeof startPortalEmulator>>
  try {
    emulator = await startPortalEmulator(options)
  } catch (error) {
    throw new CommandFailure(`the emulator could not start: ${(error as Error).message}`)
  }
  const pair = emulator.issueAuthParams()
  const started = emulator
  let control: Awaited<ReturnType<typeof startEmulatorControl>> | undefined
  const info = () => ({
    portalOrigin: started.portalOrigin,
    clientEndpoint: started.clientEndpoint,
    serverEndpoint: started.serverEndpoint,
    tokenUrl: started.tokenUrl,
    oauthServer: started.oauthServer,
    controlEndpoint: control ? `${control.origin}/` : undefined,
    clientId: started.clientId,
    clientSecret: started.clientSecret,
    memberId: started.memberId,
    applicationToken: started.applicationToken,
    pair,
  })
  try {
    control = await startEmulatorControl(emulator, controlPort, info)
  } catch (error) {
    await emulator.close()
    throw new CommandFailure(`the control API could not start: ${(error as Error).message}`)
  }
  if (values.json === true) io.stdout.write(`${JSON.stringify(info())}\n`)
  else
    io.stdout.write(
      [
        'Portal emulator running; Ctrl-C stops it.',
        `  portal REST root:  ${emulator.clientEndpoint}`,
        `  OAuth server:      ${emulator.serverEndpoint}`,
        `  control API:       ${control.origin}/`,
        `  client id:         ${emulator.clientId}`,
        `  member id:         ${emulator.memberId}`,
        `The client secret and a token pair: curl ${control.origin}/info (or run with --json).`,
        `Clients in other processes: PORTAL_OAUTH_TRUSTED_SERVERS=${emulator.oauthServer}`,
        '',
      ].join('\n'),
    )
  await stopped(io.signal, io.env)
  await control.close()
  await emulator.close()
  return ExitCode.Ok
}

/** `portal-oauth emulator`: the loopback portal emulator as a standalone server with an HTTP control API. */
export const emulatorCommand: Command = {
  name: 'emulator',
  summary: 'run the loopback portal emulator as a server, with an HTTP control API',
  help: HELP,
  flags: flagNames(FLAGS),
  run,
}
