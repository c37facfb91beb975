import { AjaxError } from '../errors/ajax-error.js'
import { RefreshTokenError } from '../errors/refresh-token-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import type { PortalOAuth } from '../portal-oauth.js'

/**
 * The portal's answers that refuse the stored token itself: only they say the application is gone. Any other error
 * (its limits, a 5xx, an access rule) teaches nothing, and an uninstall on it would let the application token alone
 * remove a portal whose `app.info` happens to fail.
 */
const TOKEN_REFUSALS: ReadonlySet<string | undefined> = new Set(['invalid_token', 'expired_token'])

/**
 * Requires that the portal no longer works with its stored pair before its `ONAPPUNINSTALL` is taken. The event
 * carries only the application token, which any user who opens the application's page can read; the portal removes
 * the application before it sends the event, and with it every token it issued. So the portal's client asks
 * `app.info` with the stored pair (refreshing it if it expired): an answer means the application is still installed
 * and the event is refused with `JSSDK_EVENT_NOT_PROVED`; a refused token or refresh means it is gone. When the
 * portal or the OAuth server cannot be asked, or answers any other error (a network failure, a timeout, limits, a
 * 5xx), nothing is learned: the event is
 * refused with a `NETWORK_ERROR` `AjaxError` and the installation stays.
 */
export async function requireUninstalled(memberId: string, client: PortalOAuth): Promise<void> {
  let isSuccess: boolean
  let code: string | undefined
  try {
    const answer = await client.actions.v2.call.make({ method: 'app.info' })
    isSuccess = answer.isSuccess
    code = answer.getErrors()[0]?.code
  } catch (error) {
    // The OAuth server refused the stored refresh token: the application is gone.
    if (error instanceof RefreshTokenError && error.status >= 400 && error.status < 500) return
    // Removed meanwhile by another fleet or process.
    if (error instanceof SdkError && error.code === SdkErrorCode.PortalNotInstalled) return
    throw cannotAsk(memberId)
  }
  if (isSuccess)
    throw new SdkError({
      code: SdkErrorCode.EventNotProved,
      message: `handleEvent: portal ${memberId}: the portal still answers with the stored pair, so the application is installed; nothing was changed`,
    })
  if (!TOKEN_REFUSALS.has(code)) throw cannotAsk(memberId)
}

function cannotAsk(memberId: string): AjaxError {
  return new AjaxError({
    code: SdkErrorCode.NetworkError,
    message: `handleEvent ONAPPUNINSTALL: portal ${memberId}: the portal could not be asked whether the application is still installed; nothing was changed`,
    request: { method: 'app.info' },
  })
}
