import { PACKAGE_VERSION } from '../version.js'
import type { Command } from './command.js'
import { ExitCode, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'

/** The text shared by every help page: what the exit codes mean. */
export const EXIT_CODES_HELP = `Exit codes: 0 done, 1 failed (the portal or the store answered an error, a file could not be read),
2 wrong command line (unknown flag, missing argument, a secret given as a flag).`

function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length))
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`)
  return `Usage: portal-oauth <command> [flags]

Commands:
${lines.join('\n')}

Run 'portal-oauth <command> --help' for a command's flags. Secrets (client secret, tokens) are read from
environment variables or files only, never from flags.

${EXIT_CODES_HELP}
`
}

/** The message of a failure, without a stack: library errors are already free of secrets. */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

/**
 * Runs `portal-oauth` on `argv` (without node and the script): dispatches to the command, prints its errors on
 * stderr and resolves to the exit status.
 */
export async function runCli(
  argv: readonly string[],
  commands: readonly Command[],
  io: CliIo,
): Promise<ExitCode> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? commands.find((command) => command.name === rest[0]) : undefined
    // Asked for, the help is the output; without a command it explains a wrong command line.
    const out = name === undefined ? io.stderr : io.stdout
    out.write(topic ? `${topic.help.trim()}\n` : overview(commands))
    return name === undefined ? ExitCode.Usage : ExitCode.Ok
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${PACKAGE_VERSION}\n`)
    return ExitCode.Ok
  }
  const command = commands.find((candidate) => candidate.name === name)
  if (!command) {
    io.stderr.write(
      `portal-oauth: unknown command '${name}'. Commands: ${commands.map((c) => c.name).join(', ')}\n`,
    )
    return ExitCode.Usage
  }
  try {
    return await command.run(rest, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`portal-oauth ${error.message}\nRun 'portal-oauth ${command.name} --help' for usage.\n`)
      return ExitCode.Usage
    }
    // The message alone: a class name (SdkError, AjaxError) tells a shell user nothing.
    io.stderr.write(`portal-oauth ${command.name}: ${describe(error)}\n`)
    return ExitCode.Failure
  }
}
