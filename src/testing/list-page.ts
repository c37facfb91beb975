/** Navigation data of a v2 list page, lifted out of `result` into the envelope (`next` / `total`). */
export interface EmulatorListNav {
  /** Offset of the next page; omit when there are no more rows. */
  next?: number
  /** Row count; omit for non-list methods. */
  total?: number
}

/**
 * Return value of a method handler that answers a list page: `result` goes to the envelope's `result`, `next` and
 * `total` next to it (v2, and `result_next` / `result_total` in a v2 batch). v3 ignores the navigation data.
 */
export class EmulatorListPage {
  /** The `result` of the answer. */
  readonly result: unknown
  /** Navigation data next to `result`. */
  readonly nav: EmulatorListNav

  constructor(result: unknown, nav: EmulatorListNav = {}) {
    this.result = result
    this.nav = nav
  }
}
