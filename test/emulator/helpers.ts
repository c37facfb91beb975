import { afterEach } from 'vitest'
import {
  type PortalEmulator,
  type PortalEmulatorOptions,
  startPortalEmulator,
} from '../../src/testing/index.js'

/** A JSON object answer. */
export type Json = Record<string, unknown>

/** A fake clock in ms that tests move by hand. */
export interface FakeClock {
  now: () => number
  advance(ms: number): void
  set(ms: number): void
}

/** Fake clock starting at 2026-01-01T00:00:00Z. */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let time = start
  return {
    now: () => time,
    advance: (ms) => {
      time += ms
    },
    set: (ms) => {
      time = ms
    },
  }
}

const running: PortalEmulator[] = []

afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()))
})

/** Start an emulator that is closed after the current test. */
export async function emulator(options?: PortalEmulatorOptions): Promise<PortalEmulator> {
  const started = await startPortalEmulator(options)
  running.push(started)
  return started
}

/** An HTTP answer with its parsed JSON body. */
export interface Answer {
  status: number
  headers: Headers
  body: Json
  text: string
}

/** fetch + parse the JSON body. */
export async function request(url: string, init?: RequestInit): Promise<Answer> {
  const res = await fetch(url, init)
  const text = await res.text()
  let body: Json = {}
  try {
    body = JSON.parse(text) as Json
  } catch {
    body = { raw: text }
  }
  return { status: res.status, headers: res.headers, body, text }
}

/** POST a JSON body. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

/** POST a url-encoded form body. */
export function postForm(url: string, fields: Record<string, string> | string): Promise<Answer> {
  return request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  })
}

/** What the request helpers need of an emulator (in-process or child-process). */
export type EmulatorEndpoints = Pick<
  PortalEmulator,
  'clientEndpoint' | 'tokenUrl' | 'clientId' | 'clientSecret'
>

/** Refresh through the token endpoint (POST form, as the client does). */
export function refresh(
  emu: EmulatorEndpoints,
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<Answer> {
  return postForm(emu.tokenUrl, {
    grant_type: 'refresh_token',
    client_id: emu.clientId,
    client_secret: emu.clientSecret,
    refresh_token: refreshToken,
    ...extra,
  })
}

/** Call a v2 method with the token in a JSON body. */
export function v2(
  emu: EmulatorEndpoints,
  method: string,
  token: string,
  params: Json = {},
): Promise<Answer> {
  return postJson(`${emu.clientEndpoint}${method}`, { ...params, auth: token })
}

/** Call a v3 method with the token in the JSON body. */
export function v3(
  emu: EmulatorEndpoints,
  method: string,
  token: string,
  params: Json = {},
): Promise<Answer> {
  return postJson(`${emu.clientEndpoint}api/${method}`, { ...params, auth: token })
}

/** The keys every full `time` block has. */
export const TIME_KEYS = [
  'start',
  'finish',
  'duration',
  'processing',
  'date_start',
  'date_finish',
  'operating_reset_at',
  'operating',
]

/** Narrow an unknown to a JSON object. */
export function obj(value: unknown): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected an object, got ${JSON.stringify(value)}`)
  }
  return value as Json
}

/** Narrow an unknown to an array of JSON objects. */
export function rows(value: unknown): Json[] {
  if (!Array.isArray(value)) throw new Error(`expected an array, got ${JSON.stringify(value)}`)
  return value as Json[]
}
