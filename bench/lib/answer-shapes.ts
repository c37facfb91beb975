/**
 * The shapes of `profile`'s answer that `npm run bench:vendor` serves from its minimal portal: what in an answer
 * could make one client's cost per call differ from the other's (the vendor's SDK serializes the result and the
 * `time` block for its log on every call, reads `operating` when present, and its HTTP client parses every header).
 */

/** One shape of the answer. */
export interface AnswerShape {
  name: string
  /** Headers beside `content-type` and `content-length`. */
  headers: Record<string, string>
  /** Whether the `time` block carries `operating` and `operating_reset_at`, as a real portal's does. */
  operating: boolean
  /** Extra string fields in `result`, each of `fieldChars` characters (0: `profile`'s own fields only). */
  extraFields: number
  fieldChars: number
}

/** `profile`'s result as the vendor's documentation samples it (protocol.md 8). */
const PROFILE = {
  ID: '1',
  ADMIN: true,
  NAME: 'Vadim',
  LAST_NAME: 'Valeev',
  PERSONAL_GENDER: '',
  TIME_ZONE: '',
}

/** The headers a cloud portal adds to a REST answer (protocol.md 3), and a web server's usual ones. */
const PORTAL_HEADERS = {
  server: 'nginx',
  date: 'Sun, 29 Nov 2026 02:00:00 GMT',
  connection: 'keep-alive',
  'x-powered-by': 'PHP/8.2',
  p3p: 'policyref="/bitrix/p3p.xml", CP="NON DSP COR CUR ADM DEV PSA PSD OUR UNR BUS UNI COM NAV INT DEM STA"',
  'x-devsrv-cms': 'Bitrix',
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'origin, content-type, accept',
  'x-content-type-options': 'nosniff',
  'x-bitrix-rest-application': 'local.0000000000000000.00000000',
  'x-bitrix-rest-time': '0.0123',
  'x-bitrix-rest-user-time': '0.0100',
  'x-bitrix-rest-system-time': '0.0020',
  'strict-transport-security': 'max-age=31536000',
}

/** The shapes measured, from the barest to the fullest. */
export const ANSWER_SHAPES: readonly AnswerShape[] = [
  {
    name: 'bare: result and time, no operating',
    headers: {},
    operating: false,
    extraFields: 0,
    fieldChars: 0,
  },
  {
    name: "time with operating (a real portal's)",
    headers: {},
    operating: true,
    extraFields: 0,
    fieldChars: 0,
  },
  {
    name: "a real portal's 14 headers",
    headers: PORTAL_HEADERS,
    operating: false,
    extraFields: 0,
    fieldChars: 0,
  },
  {
    name: 'a result of 50 fields of 100 characters',
    headers: {},
    operating: false,
    extraFields: 50,
    fieldChars: 100,
  },
]

/** PHP `date('c')` of a ms timestamp, in UTC. */
function phpDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`
}

/** The answer's body at `nowMs`. */
export function answerBody(shape: AnswerShape, nowMs: number): string {
  const result: Record<string, unknown> = { ...PROFILE }
  for (let index = 0; index < shape.extraFields; index += 1)
    result[`UF_FIELD_${index}`] = 'x'.repeat(shape.fieldChars)
  const start = nowMs / 1000
  const time: Record<string, unknown> = {
    start,
    finish: start + 0.0123,
    duration: 0.0123,
    processing: 0.0101,
    date_start: phpDate(nowMs),
    date_finish: phpDate(nowMs + 12),
  }
  if (shape.operating) {
    time.operating_reset_at = Math.floor(start) + 600
    time.operating = 0
  }
  return JSON.stringify({ result, time })
}
