import type { TypeHttp } from '../../http/rest-transport.js'
import type { KeysetPlanner } from './call-list.js'
import { keysetPages } from './keyset-pages.js'

/**
 * `fetchList` / `fetchTail`: a list page by page, as an async generator, so that a list of any size is processed
 * in constant memory. The next page is asked for only when the loop wants it; `break` stops the requests.
 * Bad options throw at `make()`; a failed page throws a `ListPageError` after the pages before were yielded.
 */
export class FetchListAction<O> {
  readonly #transport: () => TypeHttp
  readonly #planner: KeysetPlanner<O>
  readonly #action: string

  constructor(transport: () => TypeHttp, planner: KeysetPlanner<O>, action: string) {
    this.#transport = transport
    this.#planner = planner
    this.#action = action
  }

  /** Yields each non-empty page of rows, in id order. */
  make<T = unknown>(options: O): AsyncGenerator<T[], void, undefined> {
    return keysetPages<T>(this.#transport, this.#planner(options, this.#action))
  }
}
