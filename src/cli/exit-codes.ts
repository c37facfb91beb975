/** Exit status of every `portal-oauth` command: scripts branch on these three values only. */
export const ExitCode = {
  /** The command did what it was asked. */
  Ok: 0,
  /** It could not: the portal answered an error, a file or the store could not be read, a refresh failed. */
  Failure: 1,
  /** The command line was wrong: an unknown command or flag, a missing argument, a secret given as a flag. */
  Usage: 2,
} as const

/** One of {@link ExitCode}'s values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** A wrong command line: reported with the command's name and ends the process with {@link ExitCode.Usage}. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** A failure the command explains itself (no stack): ends the process with {@link ExitCode.Failure}. */
export class CommandFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'CommandFailure'
  }
}
