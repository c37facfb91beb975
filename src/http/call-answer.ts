import { AjaxResult } from '../results/ajax-result.js'
import type { ApiVersion } from '../types/api-version.js'
import type { Answer, CallContext } from './call-context.js'
import { callFields, invalidBodyError } from './call-errors.js'
import { portalErrorsToSdkErrors, readPayload, readPortalError } from './payload.js'
import type { TransportContext } from './transport-context.js'
import { answerText } from './undici-fetch.js'

/** The text of the answer when the adapter read it: into the call's body, or beside a status-only `Response`. */
export function answerTextOf(context: CallContext, response: Response): string | undefined {
  return context.body.answer ?? answerText(response)
}

/** The answer as JSON; synchronous when the adapter handed the text over (see {@link answerTextOf}). */
export function readAnswerBody(context: CallContext, response: Response): unknown {
  const text = answerTextOf(context, response)
  if (text !== undefined) return parseAnswerBody(context, response.status, text)
  return response.text().then((read) => parseAnswerBody(context, response.status, read))
}

function parseAnswerBody(context: CallContext, status: number, text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text)
  } catch (cause) {
    throw invalidBodyError(context, status, cause)
  }
}

/**
 * The call's result from the portal's last answer: its payload, or the portal's errors (logged at debug). Records
 * the answer's operating time with the limiter either way.
 */
export function answerToResult<T>(
  instance: TransportContext,
  apiVersion: ApiVersion,
  context: CallContext,
  answer: Answer,
): AjaxResult<T> {
  const { method } = context.options
  const error = readPortalError(answer.body)
  const payload = readPayload<T>(answer.body)
  instance.restrictions.record(method, payload.time)
  if (error === null && answer.status < 400) {
    return new AjaxResult<T>({
      payload,
      status: answer.status,
      query: context.query,
    })
  }
  const result = new AjaxResult<T>({ status: answer.status, query: context.query })
  const portalError = error ?? { code: `HTTP_${answer.status}`, description: '', validation: [] }
  for (const item of portalErrorsToSdkErrors(portalError, answer.status)) result.addError(item)
  instance.logger.debug(`${apiVersion} ${method}: portal answered ${portalError.code}`, {
    ...callFields(context.query),
    status: answer.status,
    attempts: context.attempts,
    durationMs: performance.now() - context.started,
  })
  return result
}
