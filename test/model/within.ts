/**
 * Longest wait for something the client does on its own. It only turns a hang into a message naming what never
 * happened; it is no speed bound, so it is generous, and below vitest's 30 s test timeout.
 */
export const WAIT_MS = 20_000

/** `promise`, or a rejection naming `what` if it has not settled within {@link WAIT_MS}. */
export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
