import type { LoggerInterface } from './logger.js'
import type { SecretRegistry } from './secret-registry.js'
import { asConsoleShaped, type SupportedLogger } from './structured-logger.js'

/** Wraps the user's logger so that no secret of the instance reaches a log line. */
export class RedactingLogger implements LoggerInterface {
  readonly #secrets: SecretRegistry
  #loggerFailed = false
  /** The logger as given: pino-shaped or console-shaped. */
  #given: SupportedLogger
  /** A console-shaped view of it, which lines are forwarded to. */
  #target: LoggerInterface

  constructor(target: SupportedLogger, secrets: SecretRegistry) {
    this.#given = target
    this.#target = asConsoleShaped(target)
    this.#secrets = secrets
  }

  /** The logger lines are forwarded to, as given. */
  get target(): SupportedLogger {
    return this.#given
  }

  set target(target: SupportedLogger) {
    this.#given = target
    this.#target = asConsoleShaped(target)
  }

  debug(message: string, context?: Record<string, unknown>): void {
    this.#forward('debug', message, context)
  }

  info(message: string, context?: Record<string, unknown>): void {
    this.#forward('info', message, context)
  }

  warn(message: string, context?: Record<string, unknown>): void {
    this.#forward('warn', message, context)
  }

  error(message: string, context?: Record<string, unknown>): void {
    this.#forward('error', message, context)
  }

  #forward(level: keyof LoggerInterface, message: string, context?: Record<string, unknown>): void {
    const safeMessage = this.#secrets.redactText(message)
    try {
      if (context === undefined) this.#target[level](safeMessage)
      else this.#target[level](safeMessage, this.#secrets.loggable(context))
    } catch (error) {
      // A logging failure never fails a call. Say so once, as a process warning, with every secret removed.
      if (this.#loggerFailed) return
      this.#loggerFailed = true
      // Read as any thrown value is: a logger's failure runs no code of its own here, and names no secret.
      const reason = this.#secrets.snapshot(error).summary().message
      process.emitWarning(
        `portal-oauth: the logger threw (${reason}); its lines are dropped`,
        'PortalOAuthLoggerWarning',
      )
    }
  }
}
