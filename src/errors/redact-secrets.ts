import { REDACTED } from './secret-rules.js'

/**
 * What a text may hold of a secret and still have it found (docs/security.md, "Which forms of a secret are found"):
 * the secret in any letter case; percent-encoded (`encodeURIComponent`, a form body) and JSON-escaped; in base64 or
 * base64url at any byte offset of what was encoded (an `Authorization: Basic` header, a token in a JWT-like blob);
 * and any value a text labels with a secret's name (`"refresh_token":"..."`, `accessToken: '...'`, `auth=...`,
 * `Authorization: Bearer ...`), known or not. Not found: a secret split, hashed, encrypted, hex-dumped, double-encoded
 * or otherwise transformed.
 */

/** Shorter values are not treated as secrets (they would redact ordinary words). */
export const MIN_SECRET_LENGTH = 6

/** The names a text may label a secret with (the same as `SECRET_KEY`'s). */
const SECRET_NAMES =
  'auth|access_?token|refresh_?token|client_?secret|application_?token|authorization|secret|password'

/**
 * A value labelled with a secret's name: the name, an optional `]` (`auth[access_token]`) and closing quote (also
 * escaped, as in JSON inside JSON), `:` or `=`, an optional `Bearer ` or `Basic `, then a quoted value (group 1) or a
 * bare one up to a separator (group 2). Whether the name stands alone (not inside a longer word; `%5B` before it is a
 * `[`) is checked on each match: a pattern that starts with the names is searched for faster than one that starts
 * with a look-behind.
 */
const LABELLED = new RegExp(
  `(?:${SECRET_NAMES})(?:\\]|%5D)?(?:\\\\*["'\`])?[ \\t]*[:=][ \\t]*(?:(?:bearer|basic)[ \\t]+)?` +
    `(?:\\\\*["'\`]([^"'\`\\\\\\r\\n]+)|(?!(?:null|undefined|true|false)(?![A-Za-z0-9]))([^\\s"'\`&,;<>{}()\\[\\]\\\\]+))`,
  'gi',
)

/** Letters and digits, by character code: a secret's name right after one is part of a longer word. */
const WORD = new Uint8Array(128)
/** The characters of base64 and base64url, by character code. */
const BASE64 = new Uint8Array(128)
for (let code = 0; code < 128; code += 1) {
  const char = String.fromCharCode(code)
  WORD[code] = /[A-Za-z0-9]/.test(char) ? 1 : 0
  BASE64[code] = /[A-Za-z0-9+/_-]/.test(char) ? 1 : 0
}

/** Characters that percent-encoding and JSON leave as they are: a secret made of them has no other text form. */
const PLAIN = /^[A-Za-z0-9._~-]*$/

/**
 * The secrets of one redaction, for every text of a thrown value (or one log line). What each secret needs (its text
 * forms lower-cased, its bytes for the search in decoded base64) is made the first time a text is long enough to hold
 * it, and kept for the next texts: a short text costs a comparison of lengths per secret.
 */
export class PreparedSecrets {
  /** The secrets long enough to count. */
  readonly #secrets: string[] = []
  /** Per secret, once made: its text forms, lower-cased, the secret's own first. */
  readonly #forms: Array<string[] | undefined> = []
  /** Per secret, once made: its UTF-8 bytes as a Latin-1 string, as decoded base64 is searched. */
  readonly #bytes: Array<string | undefined> = []
  /** The shortest secret, in characters. */
  readonly #shortest: number = Number.POSITIVE_INFINITY

  /** `secrets`, repeated or not; values shorter than {@link MIN_SECRET_LENGTH} are left out. */
  constructor(secrets: Iterable<string>) {
    let shortest = Number.POSITIVE_INFINITY
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue
      this.#secrets.push(secret)
      shortest = Math.min(shortest, secret.length)
    }
    this.#shortest = shortest
  }

  /** `text` with every secret found (see the module's comment) replaced by `[redacted]`. */
  redactText(text: string): string {
    const spans: number[] = []
    if (text.length >= this.#shortest) {
      this.#findForms(text, spans)
      // The base64 of `n` bytes at the worst offset spans at least floor(4n / 3) characters.
      if (text.length >= Math.floor((this.#shortest * 4) / 3)) this.#findBase64(text, spans)
    }
    findLabelled(text, spans)
    return spans.length === 0 ? text : replaceSpans(text, spans)
  }

  /** Where a text form of a secret is, in any letter case: start and end pairs pushed on `spans`. */
  #findForms(text: string, spans: number[]): void {
    let lower: string | undefined
    for (let index = 0; index < this.#secrets.length; index += 1) {
      const secret = this.#secrets[index] ?? ''
      // Every form of a secret is at least as long as the secret.
      if (secret.length > text.length) continue
      lower ??= lowerSameLength(text)
      for (const form of this.#formsOf(index, secret)) {
        for (let at = lower.indexOf(form); at !== -1; at = lower.indexOf(form, at + 1)) {
          spans.push(at, at + form.length)
        }
      }
    }
  }

  /**
   * Where base64 or base64url of a text holding a secret is: each run of their characters long enough is decoded at
   * its four character offsets (one of which is the encoder's), and the secret's bytes looked for in what comes out,
   * whatever its byte offset. Every character that carries a bit of the secret is pushed as part of the span.
   */
  #findBase64(text: string, spans: number[]): void {
    const shortestRun = Math.floor((this.#shortest * 4) / 3)
    for (const [start, end] of runsOf(text, shortestRun)) {
      const run = text.slice(start, end)
      for (let phase = 0; phase < 4 && end - start - phase >= shortestRun; phase += 1) {
        const decoded = Buffer.from(phase === 0 ? run : run.slice(phase), 'base64').toString('latin1')
        for (let index = 0; index < this.#secrets.length; index += 1) {
          const bytes = this.#bytesOf(index)
          if (bytes.length > decoded.length) continue
          for (let at = decoded.indexOf(bytes); at !== -1; at = decoded.indexOf(bytes, at + 1)) {
            const last = at + bytes.length - 1
            const from = start + phase + Math.floor(at / 3) * 4 + (at % 3)
            const to = start + phase + Math.floor(last / 3) * 4 + (last % 3) + 2
            spans.push(from, Math.min(to, end))
          }
        }
      }
    }
  }

  /** The text forms of the secret at `index`, lower-cased, made at the first need. */
  #formsOf(index: number, secret: string): string[] {
    let forms = this.#forms[index]
    if (forms === undefined) {
      // Lower-cased as the text is, so that a letter whose lower case is longer (`İ`) matches itself.
      forms = [lowerSameLength(secret)]
      if (!PLAIN.test(secret)) {
        for (const form of encodedForms(secret)) {
          const lowered = lowerSameLength(form)
          if (!forms.includes(lowered)) forms.push(lowered)
        }
      }
      this.#forms[index] = forms
    }
    return forms
  }

  /** The bytes of the secret at `index`, made at the first need. */
  #bytesOf(index: number): string {
    let bytes = this.#bytes[index]
    if (bytes === undefined) {
      const secret = this.#secrets[index] ?? ''
      // An ASCII secret is its own bytes.
      bytes = Buffer.byteLength(secret) === secret.length ? secret : Buffer.from(secret).toString('latin1')
      this.#bytes[index] = bytes
    }
    return bytes
  }
}

/** `text` with every secret in `secrets` found (see {@link PreparedSecrets}) replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  return new PreparedSecrets(secrets).redactText(text)
}

/** The forms a secret takes percent-encoded (a URL, a form body) and JSON-escaped, when they differ from it. */
function encodedForms(secret: string): string[] {
  const forms = [encodeURIComponent(secret), new URLSearchParams({ v: secret }).toString().slice(2)]
  const json = JSON.stringify(secret).slice(1, -1)
  forms.push(json, json.replaceAll('/', '\\/'))
  return forms.filter((form) => form !== secret)
}

/** Pushes the spans of every value `text` labels with a secret's name. */
function findLabelled(text: string, spans: number[]): void {
  if (!text.includes(':') && !text.includes('=')) return
  LABELLED.lastIndex = 0
  for (let match = LABELLED.exec(text); match !== null; match = LABELLED.exec(text)) {
    const at = match.index
    const before = at > 0 ? text.charCodeAt(at - 1) : 0
    if (before < 128 && WORD[before] === 1 && !/%5b$/i.test(text.slice(Math.max(0, at - 3), at))) {
      // Inside a longer word (`oauth`): look again from the next character.
      LABELLED.lastIndex = at + 1
      continue
    }
    const value = match[1] ?? match[2] ?? ''
    if (value === '' || value === REDACTED) continue
    const end = at + match[0].length
    spans.push(end - value.length, end)
  }
}

/** Start and end of each run of base64 and base64url characters at least `shortest` long. */
function* runsOf(text: string, shortest: number): Iterable<[number, number]> {
  let start = 0
  for (let index = 0; index <= text.length; index += 1) {
    const code = index < text.length ? text.charCodeAt(index) : 0
    if (code < 128 && BASE64[code] === 1) continue
    if (index - start >= shortest) yield [start, index]
    start = index + 1
  }
}

/**
 * `text` lower-cased, each character where it was: `toLowerCase()` when that keeps the length (almost always),
 * otherwise character by character, keeping those whose lower case is longer (`İ`).
 */
function lowerSameLength(text: string): string {
  const lower = text.toLowerCase()
  if (lower.length === text.length) return lower
  let out = ''
  for (const unit of text) {
    const lowered = unit.toLowerCase()
    out += lowered.length === unit.length ? lowered : unit
  }
  return out
}

/** `text` with the spans (start and end pairs, in any order, overlapping or not) replaced by `[redacted]`. */
function replaceSpans(text: string, spans: number[]): string {
  const pairs: Array<[number, number]> = []
  for (let index = 0; index < spans.length; index += 2) pairs.push([spans[index] ?? 0, spans[index + 1] ?? 0])
  pairs.sort((a, b) => a[0] - b[0])
  let out = ''
  let done = 0
  let open: [number, number] | null = null
  for (const pair of pairs) {
    if (open && pair[0] <= open[1]) open[1] = Math.max(open[1], pair[1])
    else {
      if (open) {
        out += `${text.slice(done, open[0])}${REDACTED}`
        done = open[1]
      }
      open = [pair[0], pair[1]]
    }
  }
  if (open) {
    out += `${text.slice(done, open[0])}${REDACTED}`
    done = open[1]
  }
  return out + text.slice(done)
}
