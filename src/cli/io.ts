/** Where a command writes and what it knows of its terminal: the process's own, or a test's. */
export interface CliIo {
  /** Results: JSON or a table. */
  stdout: { write(text: string): unknown }
  /** Messages, progress and errors. */
  stderr: { write(text: string): unknown }
  /** Whether stdout is a terminal (then tables; JSON otherwise). */
  stdoutIsTTY: boolean
  /** Whether stderr is a terminal (then a progress bar; a plain count otherwise). */
  stderrIsTTY: boolean
  /** The environment variables the command reads. */
  env: NodeJS.ProcessEnv
  /** Aborted by SIGINT or SIGTERM: long-running commands stop cleanly. */
  signal: AbortSignal
}

/** The running process's streams, environment and signals. */
export function processIo(signal: AbortSignal): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    signal,
  }
}
