import { BATCH_MAX_COMMANDS, BatchActionBase } from './batch-action.js'
import type { BatchCommands } from './batch-commands.js'
import { notSentOutcome } from './batch-entries.js'
import type { BatchOutcome, BatchSettings } from './batch-runner.js'

/**
 * `actions.vN.batchByChunk`: any number of commands, sent one chunk of 50 after the other and merged in input
 * order. Under `isHaltOnError` (default) a chunk with a failed command ends the run: the later chunks are not sent
 * and their commands come back not run. References between commands (`$result[...]`, `$ref`) work only within
 * a chunk.
 */
export class BatchByChunkAction extends BatchActionBase {
  protected async execute(batch: BatchCommands, settings: BatchSettings): Promise<BatchOutcome> {
    const merged: BatchOutcome = { entries: [], errors: [] }
    let halted = false
    for (let start = 0; start < batch.commands.length; start += BATCH_MAX_COMMANDS) {
      const chunk = batch.commands.slice(start, start + BATCH_MAX_COMMANDS)
      const outcome = halted
        ? notSentOutcome(this.runner.apiVersion, chunk, settings)
        : await this.runner.run(chunk, settings)
      merged.entries.push(...outcome.entries)
      merged.errors.push(...outcome.errors)
      if (settings.haltOnError && outcome.entries.some((entry) => !entry.isSuccess)) halted = true
    }
    return merged
  }
}
