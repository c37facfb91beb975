import type { ApiVersion } from '../types/api-version.js'
import { Result } from './result.js'

/** The `time` block the portal adds to every answer (contract 4.2). */
export interface PayloadTime {
  /** Request start, Unix seconds with a fraction. */
  start: number
  /** Request end, Unix seconds with a fraction. */
  finish: number
  /** `finish - start`, seconds. */
  duration: number
  /** Time spent inside the method, seconds. */
  processing: number
  /** ISO-8601 start. */
  date_start: string
  /** ISO-8601 end. */
  date_finish: string
  /** When the oldest bucket of this method's operating budget expires, Unix seconds (cloud only). */
  operating_reset_at?: number
  /** Seconds of this method's operating budget used in the window (cloud only). */
  operating?: number
}

/** A successful answer's body: the method's `result` plus paging and timing. */
export interface AjaxPayload<T = unknown> {
  /** What the method returned. */
  result: T
  /** Offset of the next page; present only when more rows exist (v2 lists). */
  next?: number
  /** Number of rows (v2 lists). */
  total?: number
  /** Timing and operating budget. */
  time?: PayloadTime
}

/** What was asked, without the access token. */
export interface AjaxQuery {
  /** REST API version. */
  apiVersion: ApiVersion
  /** REST method name. */
  method: string
  /** Parameters as sent, without `auth`. */
  params: Record<string, unknown>
  /** The caller's request label, if any. */
  requestId?: string
}

/** The result of one REST call: the payload, or the portal's errors (which do not throw). */
export class AjaxResult<T = unknown> extends Result<AjaxPayload<T>> {
  /** HTTP status of the answer. */
  readonly status: number
  /** What was asked. */
  readonly query: AjaxQuery

  constructor(options: { payload?: AjaxPayload<T>; status: number; query: AjaxQuery }) {
    super(options.payload)
    this.status = options.status
    this.query = options.query
  }

  /** The payload: `{ result, next?, total?, time? }`. */
  override getData(): AjaxPayload<T> | undefined {
    return super.getData()
  }

  /** Whether the portal says more rows exist (`next` present). */
  isMore(): boolean {
    return typeof this.getData()?.next === 'number'
  }

  /** Offset of the next page, or `false` when there is none. */
  getNext(): number | false {
    const next = this.getData()?.next
    return typeof next === 'number' ? next : false
  }

  /** `total` of a v2 list, 0 when absent. */
  getTotal(): number {
    return this.getData()?.total ?? 0
  }

  /** The `time` block, when the portal sent one. */
  getTime(): PayloadTime | undefined {
    return this.getData()?.time
  }

  /** HTTP status of the answer. */
  getStatus(): number {
    return this.status
  }

  /** What was asked, without the access token. */
  getQuery(): AjaxQuery {
    return this.query
  }
}
