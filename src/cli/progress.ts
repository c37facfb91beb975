import type { CliIo } from './io.js'

/** Width of the bar in characters. */
const BAR_WIDTH = 30

/** How many rows a listing walked: a bar redrawn in place on a terminal, one plain line at the end otherwise. */
export class ListProgress {
  readonly #io: CliIo
  readonly #label: string
  readonly #total: number | undefined
  #rows = 0

  /** `total` is the row count when the portal told it (v2 lists), else the bar shows the count alone. */
  constructor(io: CliIo, label: string, total: number | undefined) {
    this.#io = io
    this.#label = label
    this.#total = total
  }

  /** Counts a page of `rows` rows. */
  page(rows: number): void {
    this.#rows += rows
    if (this.#io.stderrIsTTY) this.#io.stderr.write(`\r${this.#line()}`)
  }

  /** Ends the bar's line (terminal) or writes the count (otherwise). */
  done(): void {
    if (this.#io.stderrIsTTY) this.#io.stderr.write(`\r${this.#line()}\n`)
    else this.#io.stderr.write(`${this.#label}: ${this.#rows} rows\n`)
  }

  #line(): string {
    const total = this.#total
    if (total === undefined || total === 0) return `${this.#label} ${this.#rows} rows`
    const share = Math.min(1, this.#rows / total)
    const filled = Math.round(share * BAR_WIDTH)
    const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`
    return `${this.#label} ${bar} ${this.#rows}/${total} ${Math.round(share * 100)}%`
  }
}
