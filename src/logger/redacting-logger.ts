import type { LoggerInterface } from './logger.js'
import type { SecretRegistry } from './secret-registry.js'

/** Wraps the user's logger so that no secret of the instance reaches a log line. */
export class RedactingLogger implements LoggerInterface {
  readonly #secrets: SecretRegistry
  #target: LoggerInterface

  constructor(target: LoggerInterface, secrets: SecretRegistry) {
    this.#target = target
    this.#secrets = secrets
  }

  /** The logger lines are forwarded to. */
  get target(): LoggerInterface {
    return this.#target
  }

  set target(target: LoggerInterface) {
    this.#target = target
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
    if (context === undefined) this.#target[level](safeMessage)
    else this.#target[level](safeMessage, this.#secrets.redactValue(context) as Record<string, unknown>)
  }
}
