import type { RequestLog, RequestLogEntry } from './types.js'

/** The fields of a log entry known when a request arrives. */
export type RequestLogStart = Omit<RequestLogEntry, 'seq' | 'status'>

/** In-memory `RequestLog`: entries are appended on arrival and completed when answered. */
export class RequestLogStore implements RequestLog {
  #entries: RequestLogEntry[] = []
  #seq = 0
  readonly #limit: number

  /** `limit`: how many of the newest entries to keep (default unlimited). */
  constructor(limit = Number.POSITIVE_INFINITY) {
    this.#limit = Math.max(0, limit)
  }

  get entries(): readonly RequestLogEntry[] {
    return this.#entries
  }

  /** Append a new entry (status 0 until answered) and return it for later completion. */
  start(fields: RequestLogStart): RequestLogEntry {
    this.#seq += 1
    const entry: RequestLogEntry = { seq: this.#seq, ...fields, status: 0 }
    this.#entries.push(entry)
    while (this.#entries.length > this.#limit) this.#entries.shift()
    return entry
  }

  clear(): void {
    this.#entries = []
  }

  tokenRequests(): RequestLogEntry[] {
    return this.#entries.filter((entry) => entry.kind === 'token')
  }

  refreshRequests(): RequestLogEntry[] {
    return this.#entries.filter((entry) => entry.kind === 'token' && entry.grantType === 'refresh_token')
  }

  restRequests(): RequestLogEntry[] {
    return this.#entries.filter(
      (entry) =>
        entry.server === 'portal' &&
        (entry.kind === 'rest' || entry.kind === 'batch' || entry.kind === 'webhook'),
    )
  }

  rejected(code?: string): RequestLogEntry[] {
    return this.#entries.filter(
      (entry) =>
        (entry.status >= 400 || entry.errorCode !== undefined) &&
        (code === undefined || entry.errorCode === code),
    )
  }
}
