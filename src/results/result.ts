import { type ErrorCode, SdkError } from '../errors/sdk-error.js'

/** One error of a {@link Result}: the portal's code and message. */
export type ResultError = SdkError

/** The outcome of an operation: data, or errors that did not throw. */
export class Result<T = unknown> {
  #data: T | undefined
  readonly #errors: ResultError[] = []

  constructor(data?: T) {
    this.#data = data
  }

  /** `true` when no error was added. */
  get isSuccess(): boolean {
    return this.#errors.length === 0
  }

  /** The data, `undefined` when there is none. */
  getData(): T | undefined {
    return this.#data
  }

  /** Replaces the data. */
  setData(data: T): this {
    this.#data = data
    return this
  }

  /** Adds an error; a string becomes an {@link SdkError} with the given code. */
  addError(error: ResultError | Error | string, code = 'ERROR'): this {
    if (error instanceof SdkError) this.#errors.push(error)
    else if (error instanceof Error)
      this.#errors.push(new SdkError({ code, message: error.message, cause: error }))
    else this.#errors.push(new SdkError({ code, message: error }))
    return this
  }

  /** The errors with their codes (`code`, `message`, `status`, `description`). */
  getErrors(): readonly ResultError[] {
    return this.#errors
  }

  /** Whether an error with this code is present. */
  hasError(code: ErrorCode): boolean {
    return this.#errors.some((error) => error.code === code)
  }

  /** The messages of the errors, as the portal worded them. */
  getErrorMessages(): string[] {
    return this.#errors.map((error) => error.message)
  }

  /** A one-line summary for logs. */
  toString(): string {
    return this.isSuccess
      ? 'Result(success)'
      : `Result(errors: ${this.#errors.map((error) => `${error.code}: ${error.message}`).join('; ')})`
  }
}
