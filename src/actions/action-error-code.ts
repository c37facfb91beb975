import { SdkErrorCode } from '../errors/sdk-error.js'

/**
 * The codes of the list and batch actions, kept under their earlier name.
 * @deprecated Every code is in {@link SdkErrorCode}; use it instead.
 */
export const ActionErrorCode = {
  /** @deprecated Use `SdkErrorCode.BatchTooLarge`. */
  BatchTooLarge: SdkErrorCode.BatchTooLarge,
  /** @deprecated Use `SdkErrorCode.BatchCommandNotRun`. */
  BatchCommandNotRun: SdkErrorCode.BatchCommandNotRun,
  /** @deprecated Use `SdkErrorCode.ListNotRows`. */
  ListNotRows: SdkErrorCode.ListNotRows,
  /** @deprecated Use `SdkErrorCode.ListIdMissing`. */
  ListIdMissing: SdkErrorCode.ListIdMissing,
  /** @deprecated Use `SdkErrorCode.ListNoProgress`. */
  ListNoProgress: SdkErrorCode.ListNoProgress,
} as const
