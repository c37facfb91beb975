/** One line of the summary table: a measured figure against its bar. */
export interface FigureRow {
  /** What was measured. */
  figure: string
  /** The measured value, as printed. */
  measured: string
  /** The bar, as printed. */
  bar: string
  /** Whether the bar is met (true for a figure that does not apply). */
  pass: boolean
  /** Set when the figure could not apply on this machine (a missing binary): printed as `n/a`, not a failure. */
  notApplicable?: boolean
  /**
   * Set on figures that are times or CPU ratios, which other work on the machine moves: on a loaded run (see
   * bench/lib/load.ts) a miss of such a bar is printed as `missed (loaded)` and does not fail the run, unless
   * `BENCH_STRICT=1`. Counts (requests, refreshes, heap) never get this leeway.
   */
  loadSensitive?: boolean
}

/** A figure's rows plus optional detail lines (printed under the summary, kept in the report). */
export interface FigureResult {
  /** Summary rows. */
  rows: FigureRow[]
  /** Markdown lines with the details behind the rows (a sub-table, raw counts). */
  details: string[]
}
