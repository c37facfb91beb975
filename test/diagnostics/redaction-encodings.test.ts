import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { redactSecrets } from '../../src/errors/redact-secrets.js'
import { SecretRegistry } from '../../src/logger/secret-registry.js'

// Which forms of a secret redaction finds (docs/security.md, "Which forms of a secret are found"): generated secrets,
// written in each form inside generated text, must leave no piece of themselves behind.

/** A token as the portal issues them: 70 lower-case hex characters. */
const token = fc.stringMatching(/^[0-9a-f]{70}$/)
/** A client secret: letters and digits. */
const alphanumeric = fc.stringMatching(/^[A-Za-z0-9]{12,64}$/)
/** A secret of any printable characters (a webhook secret, a password in a connection string). */
const anyPrintable = fc.string({ minLength: 12, maxLength: 48, unit: 'grapheme' })
const secret = fc.oneof(token, alphanumeric, anyPrintable)
/** A secret whose letters can change case one for one. */
const asciiSecret = fc.oneof(token, alphanumeric, fc.string({ minLength: 12, maxLength: 48 }))

/** Text around a secret: anything, glued to it or not. */
const around = fc.string({ maxLength: 40, unit: 'grapheme' })

/** Every window of `length` characters of `text`. */
function windows(text: string, length: number): string[] {
  const out: string[] = []
  for (let at = 0; at + length <= text.length; at += 1) out.push(text.slice(at, at + length))
  return out
}

/**
 * Whether `out` shows a piece (8 characters) of `needle`, a secret's form, that the text around the needle (`elsewhere`,
 * the needle cut out) does not hold by itself: what generated text says twice is no leak.
 */
function shows(out: string, needle: string, elsewhere = ''): boolean {
  return windows(needle, Math.min(8, needle.length)).some(
    (piece) => out.includes(piece) && !elsewhere.includes(piece),
  )
}

/** Redacts `text` as a client does: `redactSecrets`, and the snapshot of an error whose message it is. */
function bothWays(text: string, secrets: string[]): string[] {
  const registry = new SecretRegistry()
  for (const value of secrets) registry.pin(value)
  const read = registry.snapshot(Object.assign(new Error(text), { detail: { text } }))
  return [redactSecrets(text, secrets), read.summary().message, JSON.stringify(read.data())]
}

describe('a known secret is found in each form a thrown value or a log line could realistically hold it', () => {
  it('as it is, and in any letter case (a logger that upper-cases hex)', () => {
    fc.assert(
      fc.property(asciiSecret, around, around, fc.func(fc.boolean()), (value, before, after, upper) => {
        const mixed = [...value].map((char, index) => (upper(index) ? char.toUpperCase() : char)).join('')
        for (const form of [value, value.toUpperCase(), mixed]) {
          for (const out of bothWays(`${before}${form}${after}`, [value])) {
            expect(out.toLowerCase()).not.toContain(value.toLowerCase())
            expect(out).toContain('[redacted]')
          }
        }
      }),
      { numRuns: 200 },
    )
  })

  it('percent-encoded (a URL, a form body, with %2b or %2B) and JSON-escaped (also with \\/)', () => {
    fc.assert(
      fc.property(secret, around, around, (value, before, after) => {
        const json = JSON.stringify(value).slice(1, -1)
        const forms = [
          encodeURIComponent(value),
          encodeURIComponent(value).toLowerCase(),
          new URLSearchParams({ v: value }).toString().slice(2),
          json,
          json.replaceAll('/', '\\/'),
        ]
        for (const form of forms) {
          for (const out of bothWays(`${before}${form}${after}`, [value])) {
            expect(out.toLowerCase()).not.toContain(form.toLowerCase())
          }
        }
      }),
      // A letter whose lower case is longer (`İ`): the secret's forms were lower-cased apart from the text, and missed.
      { numRuns: 200, examples: [['       İ    ', '', '']] },
    )
  })

  it('in base64 and base64url, at every byte offset of what was encoded (an Authorization: Basic header, a blob)', () => {
    fc.assert(
      fc.property(
        secret,
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        fc.constantFrom<BufferEncoding>('base64', 'base64url'),
        around,
        around,
        (value, head, tail, encoding, before, after) => {
          const encoded = Buffer.from(`${head}${value}${tail}`).toString(encoding)
          // The characters that carry only bits of the secret: none of them may be left.
          const headBytes = Buffer.byteLength(head)
          const first = Math.ceil((headBytes * 4) / 3)
          const last = Math.floor(((headBytes + Buffer.byteLength(value)) * 4) / 3)
          const core = encoded.slice(first, last)
          const elsewhere = `${before}${encoded.slice(0, first)}\n${encoded.slice(last)}${after}`
          for (const out of bothWays(`${before}${encoded}${after}`, [value])) {
            expect(shows(out, core, elsewhere)).toBe(false)
            expect(out).toContain('[redacted]')
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('the Basic header of a client id and secret, whatever the id: every offset mod 3', () => {
    const clientSecret = 'Zx9QwErTy12345AbcdefGhij'
    for (const clientId of ['a', 'ab', 'abc', 'local.6543210.12345678']) {
      const header = `Authorization: Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
      // Only the secret's bits go: without the label, the client id's characters stay.
      const out = redactSecrets(header.replace('Authorization: Basic ', 'sent '), [clientSecret])
      expect(out).toMatch(/^sent [A-Za-z0-9+/]*\[redacted\][A-Za-z0-9+/]{0,2}=*$/)
    }
  })

  it('in a text made of several forms and several secrets at once, each is found', () => {
    fc.assert(
      fc.property(fc.uniqueArray(token, { minLength: 2, maxLength: 5 }), around, (tokens, glue) => {
        const text = tokens
          .map((value, index) =>
            index % 2 === 0 ? value.toUpperCase() : Buffer.from(`x${value}`).toString('base64'),
          )
          .join(glue)
        const out = redactSecrets(text, tokens)
        for (const value of tokens) expect(out.toLowerCase()).not.toContain(value)
        for (const value of tokens)
          expect(shows(out, Buffer.from(`x${value}`).toString('base64').slice(4, -4), glue)).toBe(false)
      }),
      { numRuns: 100 },
    )
  })
})

describe('a value a text labels with a secret name is found, known or not', () => {
  /** A value as tokens and secrets are written: URL-safe characters. */
  const value = fc.stringMatching(/^[A-Za-z0-9._~-]{8,70}$/)
  const label = fc.constantFrom(
    (v: string) => JSON.stringify({ access_token: v }),
    (v: string) => JSON.stringify({ refreshToken: v }),
    (v: string) => JSON.stringify(JSON.stringify({ applicationToken: v })),
    (v: string) => inspect({ clientSecret: v }),
    (v: string) => new URLSearchParams({ refresh_token: v, grant_type: 'refresh_token' }).toString(),
    (v: string) => new URLSearchParams({ 'auth[access_token]': v }).toString(),
    (v: string) => `auth[application_token]=${v}`,
    (v: string) => `GET /rest/profile?auth=${v}`,
    (v: string) => `Authorization: Bearer ${v}`,
    (v: string) => `authorization: basic ${v}`,
    (v: string) => `password=${v}; secret: '${v}'`,
  )

  it('JSON, JSON in JSON, util.inspect, a form body, a query, a header', () => {
    fc.assert(
      fc.property(value, label, around, around, (v, write, before, after) => {
        // The value said again around the label is not labelled there.
        fc.pre(!`${before} ${after}`.includes(v))
        const text = `${before} ${write(v)} ${after}`
        const out = redactSecrets(text, [])
        expect(out).not.toContain(v)
        expect(out).toContain('[redacted]')
      }),
      { numRuns: 300 },
    )
  })

  it('words that only contain a secret name, and empty values, are left alone', () => {
    const text =
      'OAuth server: https://oauth.bitrix.info/rest/ refused; oauthToken=keep; accessToken: null; auth[member_id]=abc; refresh_token: undefined'
    expect(redactSecrets(text, [])).toBe(text)
  })
})

describe('what is not found, as docs/security.md says', () => {
  const security = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8')
  const value = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3'

  it('a secret split across fields, hashed, hex-encoded or base64 wrapped across lines passes unchanged', () => {
    const split = `first=${value.slice(0, 35)} second=${value.slice(35)}`
    const hashed = createHash('sha256').update(value).digest('hex')
    const hex = Buffer.from(value).toString('hex')
    const wrapped = (
      Buffer.from(value)
        .toString('base64')
        .match(/.{1,20}/g) ?? []
    ).join('\n')
    for (const text of [split, hashed, hex, wrapped]) expect(redactSecrets(text, [value])).toBe(text)
    for (const form of ['split', 'hashed', 'hex', 'wrapped']) expect(security).toContain(form)
  })
})
