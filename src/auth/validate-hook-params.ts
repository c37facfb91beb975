import type { PortalHookParams } from '../types/hook.js'
import { invalidArgument, isRemotePlainHttp, requireNoCredentials } from '../validation/rules.js'

/** Webhook secrets are path segments of letters and digits; shorter than 6 they could not be redacted from logs. */
const SECRET = /^[A-Za-z0-9_-]{6,}$/

/** `/rest/{userId}/{secret}` or `/rest/api/{userId}/{secret}`, with or without the trailing slash. */
const WEBHOOK_PATH = /^\/rest\/(?:api\/)?(\d+)\/([^/]+)\/?$/

function describe(value: unknown): string {
  if (value === undefined) return 'it is missing'
  if (value === '') return 'it is empty'
  return `got ${typeof value}`
}

/** The portal origin of `b24Url`. The value is never echoed: a full webhook URL passed by mistake holds the secret. */
function readOrigin(value: unknown): URL {
  const expected = 'must be the portal address such as https://portal.example.com'
  if (typeof value !== 'string' || value.trim() === '')
    throw invalidArgument(`PortalHook: b24Url`, `${expected}; ${describe(value)}`)
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalidArgument(`PortalHook: b24Url`, `${expected}; it is not an absolute URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidArgument(`PortalHook: b24Url`, `must use http or https, got ${url.protocol}`)
  }
  requireNoCredentials('PortalHook: b24Url', url)
  if (url.pathname.replace(/\/+$/, '') !== '' || url.search || url.hash) {
    throw invalidArgument(
      `PortalHook: b24Url`,
      `${expected}, without a path, query or fragment; for a whole webhook URL use PortalHook.fromWebhookUrl`,
    )
  }
  return url
}

/** The validated parts of a webhook. */
export interface ValidHookParams {
  /** `scheme://host[:port]` of the portal. */
  origin: string
  /** Whether the webhook is reached over plain http on another machine, where the secret can be read on the way. */
  remotePlainHttp: boolean
  /** The user id. */
  userId: number
  /** The secret. */
  secret: string
}

/** Validates `new PortalHook(params)`; throws an `SdkError` naming the field, never showing the secret. */
export function validateHookParams(input: unknown): ValidHookParams {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalidArgument(
      `PortalHook: params`,
      `must be an object { b24Url, userId, secret }; ${describe(input)}`,
    )
  }
  const { b24Url, userId, secret } = input as Partial<PortalHookParams>
  const url = readOrigin(b24Url)
  if (typeof userId !== 'number' || !Number.isInteger(userId) || userId < 1) {
    throw invalidArgument(
      `PortalHook: userId`,
      `must be a positive integer; ${typeof userId === 'number' ? `got ${userId}` : describe(userId)}`,
    )
  }
  if (typeof secret !== 'string' || !SECRET.test(secret)) {
    throw invalidArgument(
      `PortalHook: secret`,
      `must be the webhook's code: at least 6 letters, digits, _ or -; ${typeof secret === 'string' && secret !== '' ? 'it is not' : describe(secret)}`,
    )
  }
  return { origin: url.origin, remotePlainHttp: isRemotePlainHttp(url), userId, secret }
}

/** Splits a webhook URL `{portal}/rest/{userId}/{secret}/` (or `/rest/api/...`); never echoes the URL. */
export function parseWebhookUrl(input: unknown): PortalHookParams {
  const expected = 'must be a webhook URL such as https://portal.example.com/rest/1/secret/'
  if (typeof input !== 'string' || input.trim() === '')
    throw invalidArgument(`PortalHook: url`, `${expected}; ${describe(input)}`)
  let url: URL
  try {
    url = new URL(input.trim())
  } catch {
    throw invalidArgument(`PortalHook: url`, `${expected}; it is not an absolute URL`)
  }
  requireNoCredentials('PortalHook: url', url)
  const match = WEBHOOK_PATH.exec(url.pathname)
  if (!match || url.search || url.hash) {
    throw invalidArgument(`PortalHook: url`, `${expected}, without a method name, query or fragment`)
  }
  let secret: string
  try {
    secret = decodeURIComponent(match[2] ?? '')
  } catch {
    throw invalidArgument(`PortalHook: url`, `${expected}; its secret part is not valid percent-encoding`)
  }
  return { b24Url: url.origin, userId: Number(match[1]), secret }
}
