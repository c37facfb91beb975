import { SdkError, SdkErrorCode } from '../../errors/sdk-error.js'
import { BATCH_MAX_COMMANDS, BatchActionBase } from './batch-action.js'
import type { BatchCommands } from './batch-commands.js'
import type { BatchOutcome, BatchSettings } from './batch-runner.js'

/** `actions.vN.batch`: up to 50 commands in one request; more is an `SdkError` pointing to `batchByChunk`. */
export class BatchAction extends BatchActionBase {
  protected execute(batch: BatchCommands, settings: BatchSettings): Promise<BatchOutcome> {
    const count = batch.commands.length
    if (count > BATCH_MAX_COMMANDS) {
      return Promise.reject(
        new SdkError({
          code: SdkErrorCode.BatchTooLarge,
          message: `${this.runner.apiVersion} batch: ${count} commands, but one batch carries at most ${BATCH_MAX_COMMANDS}; use batchByChunk`,
        }),
      )
    }
    return this.runner.run(batch.commands, settings)
  }
}
