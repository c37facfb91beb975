import { type ParseArgsOptionsConfig, parseArgs } from 'node:util'
import { UsageError } from './exit-codes.js'

/** What a command's flags parsed to, or `'help'` when `--help`/`-h` was given. */
export type Parsed<T extends ParseArgsOptionsConfig> =
  | 'help'
  | {
      values: {
        [K in keyof T]?: T[K]['type'] extends 'boolean'
          ? boolean
          : T[K]['multiple'] extends true
            ? string[]
            : string
      }
      positionals: string[]
    }

/**
 * Flags that would carry a secret, by name: refused, since argv shows in `ps` and in shell history. A list, not a
 * pattern: `--access-token-ttl` names a lifetime, not a token.
 */
const SECRET_FLAGS: ReadonlySet<string> = new Set([
  'secret',
  'client-secret',
  'oauth-secret',
  'token',
  'access-token',
  'refresh-token',
  'application-token',
  'app-token',
  'auth',
  'auth-id',
  'refresh-id',
  'code',
  'authorization-code',
  'password',
  'passwd',
  'webhook',
  'webhook-url',
])

/**
 * Refuses a flag that carries a secret (`--client-secret`, `--access-token=…`; any spelling of case, `_` for `-`,
 * one dash or two): secrets come from environment variables or files only (`--client-secret-file`).
 */
export function refuseSecretFlags(command: string, args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '--') return
    const name = /^--?([\w-]+)(=|$)/.exec(arg)?.[1]
    if (name === undefined || !SECRET_FLAGS.has(name.toLowerCase().replaceAll('_', '-'))) continue
    throw new UsageError(
      `${command}: --${name} is refused: a secret on the command line shows in ps and in shell history. ` +
        'Give it in an environment variable or a file (see --help)',
    )
  }
}

/**
 * `--flag -5` as `--flag=-5` for a flag that takes a value: `parseArgs` would call a value that starts with a dash
 * ambiguous, and the command's own check then names the flag and what it takes.
 */
function joinNegativeValues(args: readonly string[], options: ParseArgsOptionsConfig): string[] {
  const joined: string[] = []
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    const next = args[at + 1]
    const name = /^--([\w-]+)$/.exec(arg)?.[1]
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`)
      at++
    } else joined.push(arg)
    if (arg === '--') return [...joined, ...args.slice(at + 1)]
  }
  return joined
}

/**
 * `util.parseArgs` in strict mode with `--help`/`-h` added; its errors become a {@link UsageError} naming the
 * command. Secret-looking flags are refused first.
 */
export function parseCommandArgs<T extends ParseArgsOptionsConfig>(
  command: string,
  args: readonly string[],
  options: T,
  maxPositionals: number,
): Parsed<T> {
  refuseSecretFlags(command, args)
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  try {
    parsed = parseArgs({
      args: joinNegativeValues(args, options),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new UsageError(`${command}: ${message.replace(/\. To specify a positional.*$/s, '')}`)
  }
  if (parsed.values.help === true) return 'help'
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`${command}: unexpected argument '${parsed.positionals[maxPositionals]}'`)
  }
  delete parsed.values.help
  return parsed as Exclude<Parsed<T>, 'help'>
}

/** A TCP port flag: an integer from 0 (any free port) to 65535; `undefined` when the flag is absent. */
export function portFlag(command: string, flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new UsageError(`${command}: --${flag} must be an integer from 0 to 65535, got '${value}'`)
  }
  return port
}
