import type { SdkError } from '../../errors/sdk-error.js'
import type { AjaxResult } from '../../results/ajax-result.js'
import type { ApiVersion } from '../../types/api-version.js'
import type { BatchCommand } from './batch-commands.js'

/** Settings of one batch request. */
export interface BatchSettings {
  /** Stop at the first failing command. */
  haltOnError: boolean
  /** Label of the request. */
  requestId: string | undefined
  /** Cancels the request. */
  signal: AbortSignal | undefined
}

/** What one batch request gave. */
export interface BatchOutcome {
  /** One result per command, in the order of the commands; a failed or skipped command has `isSuccess: false`. */
  entries: AjaxResult<unknown>[]
  /** The errors for the batch as a whole: each failed command's error (naming it), or the request's own errors. */
  errors: SdkError[]
}

/** Sends up to 50 commands of one API version in one request. */
export interface BatchRunner {
  /** The API version of the batch endpoint. */
  readonly apiVersion: ApiVersion
  /** Sends the commands; resolves even when commands fail, rejects only on transport failures. */
  run(commands: readonly BatchCommand[], settings: BatchSettings): Promise<BatchOutcome>
}
