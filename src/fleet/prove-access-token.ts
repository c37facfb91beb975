import { AjaxError } from '../errors/ajax-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'

/** What proving an access token needs. */
export interface AccessTokenProof {
  /** The portal REST root the store holds for the portal; never one an event names. */
  clientEndpoint: string
  /** The token to prove. */
  accessToken: string
  /** Sends the request. */
  fetch: FetchLike
  /** Longest wait for the answer, ms. */
  timeoutMs: number
  /** Extra headers of every REST request. */
  headers: Record<string, string>
}

/**
 * Whether the portal at `clientEndpoint` accepts `accessToken` as one of this application's: its `app.info`
 * answers a result (only an application's own token gets one). The token travels in the POST body, never in the
 * URL. Rejects with a `NETWORK_ERROR` `AjaxError` when the portal cannot be reached (nothing was proved).
 */
export async function proveAccessToken(proof: AccessTokenProof): Promise<boolean> {
  let response: Response
  try {
    response = await proof.fetch(`${proof.clientEndpoint}app.info.json`, {
      method: 'POST',
      headers: {
        ...proof.headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ auth: proof.accessToken }).toString(),
      signal: AbortSignal.timeout(proof.timeoutMs),
    })
  } catch (error) {
    throw new AjaxError({
      code: SdkErrorCode.NetworkError,
      message: 'handleEvent: the portal held in the store could not be reached to check the install event',
      request: { method: 'app.info' },
      cause: error instanceof Error ? new Error(error.name) : undefined,
    })
  }
  const text = await response.text().catch(() => '')
  if (!response.ok) return false
  try {
    const payload: unknown = JSON.parse(text)
    if (payload === null || typeof payload !== 'object') return false
    const { result, error } = payload as { result?: unknown; error?: unknown }
    return error === undefined && result !== null && typeof result === 'object'
  } catch {
    return false
  }
}
