import type { ExitCode } from './exit-codes.js'
import type { CliIo } from './io.js'

/** One `portal-oauth <name>` command. */
export interface Command {
  /** The word after `portal-oauth`. */
  name: string
  /** One line for the list of commands. */
  summary: string
  /** The whole `--help` text. */
  help: string
  /** Its flags (`--pair`, ...), for shell completion. */
  flags: readonly string[]
  /** Runs the command on its arguments (after its name); resolves to the exit status. */
  run(args: string[], io: CliIo): Promise<ExitCode>
}

/** The `--name` list of a `parseArgs` options object, `--help` included. */
export function flagNames(options: Record<string, unknown>): string[] {
  return [...Object.keys(options).map((name) => `--${name}`), '--help']
}

/** Writes a command's help to stdout: asked for, it is the command's output. */
export function printHelp(command: Pick<Command, 'help'>, io: CliIo): ExitCode {
  io.stdout.write(`${command.help.trim()}\n`)
  return 0
}
