import { AjaxError } from '../errors/ajax-error.js'
import { SdkErrorCode } from '../errors/sdk-error.js'
import type { FetchLike } from '../http/http-options.js'
import { NO_REDIRECT } from '../http/no-redirect.js'
import { type Answerer, readOAuthAnswer, refusedAnswerError } from '../http/refused-answer.js'

/** One question an event's proof asks with the event's access token. */
export interface TokenQuestion {
  /** Where: `{server_endpoint}app.info/` or `{client_endpoint}profile`. */
  url: string
  /** The method named in errors: `app.info`, `profile`. */
  method: string
  /** Who answers, in messages. */
  who: Answerer
  /** What is checked, in messages: `the event`, `the event's user`. */
  what: string
  /** The event's access token, sent in the POST body. */
  accessToken: string
  /** Sends the request. */
  fetch: FetchLike
  /** Longest wait for the whole answer, its body included, ms. */
  timeoutMs: number
  /** Extra headers of every request. */
  headers: Record<string, string>
}

/** What came back: the status and the answer parsed as JSON (`undefined` when it is none). */
export interface TokenAnswer {
  ok: boolean
  status: number
  payload: unknown
}

/**
 * POSTs the token (form-encoded, in the body) and reads the answer under one deadline for the request and its body,
 * following no redirect and reading at most 1 MiB (no-redirect.ts). Rejects with `JSSDK_REDIRECT_REFUSED` or
 * `JSSDK_ANSWER_TOO_LARGE` as `refusedAnswerError` says, with `REQUEST_TIMEOUT` when the deadline passed, and with
 * `NETWORK_ERROR` otherwise; none of them reads the adapter's failure, which may quote the token.
 */
export async function askWithToken(question: TokenQuestion): Promise<TokenAnswer> {
  const { url, method, who, what, timeoutMs } = question
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await question.fetch(url, {
      method: 'POST',
      headers: {
        ...question.headers,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ auth: question.accessToken }).toString(),
      redirect: NO_REDIRECT,
      signal,
    })
    const answer = await readOAuthAnswer(response, url, signal)
    let payload: unknown
    try {
      payload = JSON.parse(answer.text)
    } catch {
      // Not JSON: nothing confirmed (the callers' checks say so).
    }
    return { ok: answer.ok, status: answer.status, payload }
  } catch (error) {
    const refused = refusedAnswerError(error, { where: 'handleEvent', who, request: { method } })
    if (refused) throw refused
    throw new AjaxError({
      code: signal.aborted ? SdkErrorCode.RequestTimeout : SdkErrorCode.NetworkError,
      message: signal.aborted
        ? `handleEvent: ${who} did not answer within ${timeoutMs} ms to check ${what}; nothing was changed`
        : `handleEvent: ${who} could not be reached to check ${what}; nothing was changed`,
      request: { method },
    })
  }
}
