import type { RefreshFailure } from '../../machines/access-token.types.js'
import { AjaxError } from '../errors/ajax-error.js'
import { RefreshTokenError } from '../errors/refresh-token-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'

/** OAuth error codes that say "try later", not "this refresh token is dead". */
const TRANSIENT_OAUTH_CODES: ReadonlySet<string> = new Set(['temporarily_unavailable', 'server_error'])

/**
 * How a failed refresh attempt failed. An OAuth error payload kills the pair (`dead`) unless it is a server-side
 * hiccup (5xx, `temporarily_unavailable`); a dropped or refused connection, a timeout, a 5xx or 429 without an OAuth
 * error are `transient` and worth another attempt, which is safe with a rotating server: if the first attempt was
 * processed the old refresh token is dead either way and the retry learns it at once; if it was not, the retry saves
 * the pair. Anything else (a custom refresh that threw, an answer without a pair) is `failed`.
 */
export function classifyRefreshFailure(error: unknown): RefreshFailure['kind'] {
  try {
    return classify(error)
  } catch {
    // A thrown Proxy whose traps throw, or a getter that throws: not an error of this package.
    return 'failed'
  }
}

function classify(error: unknown): RefreshFailure['kind'] {
  if (error instanceof RefreshTokenError) {
    return error.status >= 500 || TRANSIENT_OAUTH_CODES.has(error.code) ? 'transient' : 'dead'
  }
  if (error instanceof AjaxError) {
    if (error.code === SdkErrorCode.NetworkError || error.code === SdkErrorCode.RequestTimeout)
      return 'transient'
    if (error.code === SdkErrorCode.InvalidResponse && (error.status >= 500 || error.status === 429)) {
      return 'transient'
    }
  }
  return 'failed'
}
