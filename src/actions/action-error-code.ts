/** Codes of the errors raised by the list, batch and tool actions themselves (not by the portal). */
export const ActionErrorCode = {
  /** More commands than one batch request may carry (50); use `batchByChunk`. */
  BatchTooLarge: 'JSSDK_BATCH_TOO_LARGE',
  /** A batch command was not run: an earlier command failed under `isHaltOnError`, or the whole batch failed. */
  BatchCommandNotRun: 'JSSDK_BATCH_COMMAND_NOT_RUN',
  /** A list method answered something that is not a list of rows (set `customKeyForResult`). */
  ListNotRows: 'JSSDK_LIST_NOT_ROWS',
  /** The last row of a full page has no usable id, so the next page cannot be asked for. */
  ListIdMissing: 'JSSDK_LIST_ID_MISSING',
  /** The next page did not move past the previous one (the method ignored the id filter or cursor). */
  ListNoProgress: 'JSSDK_LIST_NO_PROGRESS',
} as const
