import type { LoggerInterface } from './logger.js'

/** One level of a pino- or bunyan-shaped logger: the context object first, then the message. */
export interface StructuredLogFn {
  /** A line with a structured context. */
  (context: Record<string, unknown>, message?: string): void
  /** A line with a message only. */
  (message: string): void
}

/**
 * A pino- or bunyan-shaped logger: `debug/info/warn/error(context, message)` and `child(bindings)`. The context is
 * handed over as an object, so `requestId`, `status` and the like stay fields of the JSON line.
 */
export interface StructuredLogger {
  /** Detailed tracing: requests, retries, state changes. */
  debug: StructuredLogFn
  /** Notable events: a refresh completed. */
  info: StructuredLogFn
  /** Something the application should look at. */
  warn: StructuredLogFn
  /** A failure. */
  error: StructuredLogFn
  /** A logger with more bound fields; its presence tells this shape from a console-shaped one. */
  child(bindings: Record<string, unknown>): unknown
}

/** Either logger shape `setLogger` and the `logger` option accept; told apart without a flag. */
export type SupportedLogger = LoggerInterface | StructuredLogger

const LEVELS = ['debug', 'info', 'warn', 'error'] as const

/** Whether `value` has the four level functions of either shape. */
export function isSupportedLogger(value: unknown): value is SupportedLogger {
  if (value === null || typeof value !== 'object') return false
  const logger = value as Record<string, unknown>
  return LEVELS.every((level) => typeof logger[level] === 'function')
}

/**
 * Whether a logger takes the context first: it has `child()` (pino, bunyan). winston has `child()` too but takes the
 * message first; its `transports` tell it apart.
 */
export function isStructuredLogger(logger: SupportedLogger): logger is StructuredLogger {
  const fields = logger as unknown as Record<string, unknown>
  return typeof fields.child === 'function' && !('transports' in fields)
}

/** A console-shaped view of either shape; a structured logger gets the context first. */
export function asConsoleShaped(logger: SupportedLogger): LoggerInterface {
  if (!isStructuredLogger(logger)) return logger
  const forward =
    (level: (typeof LEVELS)[number]) =>
    (message: string, context?: Record<string, unknown>): void => {
      if (context === undefined) logger[level](message)
      else logger[level](context, message)
    }
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') }
}
