import { RefreshTokenError } from '../errors/refresh-token-error.js'
import type { LoggerInterface } from '../logger/logger.js'

/** The section of the docs (shipped with the package) on giving every instance of a portal one store. */
export const SHARED_STORE_DOCS = 'docs/guide.md#sharing-a-portal-between-instances'

/** What the error of a refused refresh token adds to its message on an instance without a shared store. */
export const UNSHARED_PAIR_HINT =
  'If another instance (a replica, another process) was started from the same pair, it may have spent this refresh ' +
  `token: instances that hold one portal's pair need one shared store (options.store), see ${SHARED_STORE_DOCS}`

/**
 * On an instance that keeps its pair to itself (no `store`), the OAuth server's `invalid_grant` is most often the
 * sign of a second instance started from the same saved pair: it refreshed first and spent the refresh token. Nothing
 * else would tell the user, so the error says it and the instance warns once. The error keeps the server's `code`,
 * `description` and `status` (contract 7).
 */
export class UnsharedPairHint {
  readonly #logger: LoggerInterface
  #warned = false

  constructor(logger: LoggerInterface) {
    this.#logger = logger
  }

  /** `error` with the hint in its message when the OAuth server refused the refresh token; anything else as it is. */
  explain(error: unknown): unknown {
    if (!(error instanceof RefreshTokenError) || error.code !== 'invalid_grant') return error
    if (!this.#warned) {
      this.#warned = true
      this.#logger.warn(
        'token refresh refused (invalid_grant) on an instance without a shared store: another instance started from ' +
          'the same pair (a replica, another process) may have spent the refresh token. Give every instance of the ' +
          `portal one store: MemoryStore in one process, RedisStore across processes; see ${SHARED_STORE_DOCS}`,
        { code: error.code, docs: SHARED_STORE_DOCS },
      )
    }
    return new RefreshTokenError({
      code: error.code,
      description: error.description,
      status: error.status,
      cause: error.cause,
      hint: UNSHARED_PAIR_HINT,
    })
  }
}
