/** A console-shaped logger: `debug/info/warn/error(message, context?)`. */
export interface LoggerInterface {
  /** Detailed tracing: requests, retries, state changes. */
  debug(message: string, context?: Record<string, unknown>): void
  /** Notable events: a refresh completed. */
  info(message: string, context?: Record<string, unknown>): void
  /** Something the application should look at: dropped options, client-side runtime. */
  warn(message: string, context?: Record<string, unknown>): void
  /** A failure: a refresh callback threw, a refresh failed. */
  error(message: string, context?: Record<string, unknown>): void
}

const noop = (): void => {}

/** The default logger: warnings and errors go to the console, debug and info are dropped. */
export function createDefaultLogger(): LoggerInterface {
  return {
    debug: noop,
    info: noop,
    warn: (message, context) => (context ? console.warn(message, context) : console.warn(message)),
    error: (message, context) => (context ? console.error(message, context) : console.error(message)),
  }
}

/** A logger that drops everything. */
export function createNullLogger(): LoggerInterface {
  return { debug: noop, info: noop, warn: noop, error: noop }
}
