/** Application status letters the portal reports (contract 2.2). */
export const EnumAppStatus = {
  /** Free application (market). */
  Free: 'F',
  /** Demo version (market). */
  Demo: 'D',
  /** Trial, time-limited (market). */
  Trial: 'T',
  /** Paid (market). */
  Paid: 'P',
  /** Local application. */
  Local: 'L',
  /** Available through a market subscription. */
  Subscription: 'S',
} as const

/** One of the application status letters of {@link EnumAppStatus}. */
export type TypeEnumAppStatus = (typeof EnumAppStatus)[keyof typeof EnumAppStatus]

const statusLetters: ReadonlySet<string> = new Set(Object.values(EnumAppStatus))

/** Whether a value is one of the status letters of {@link EnumAppStatus}. */
export function isAppStatus(value: unknown): value is TypeEnumAppStatus {
  return typeof value === 'string' && statusLetters.has(value)
}
