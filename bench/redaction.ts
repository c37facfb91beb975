/**
 * `npm run bench:redaction`: what redacting one failure costs, the literal redaction this package had before
 * (`text.includes(secret)` then `split`/`join`, per secret) and the current one (any letter case, percent-encoded,
 * JSON-escaped, base64 and base64url at any offset, labelled values; src/errors/redact-secrets.ts), measured side by
 * side in one process, their rounds interleaved. One failure is what a client or a fleet does with a store's error:
 * the error read once into a redacted snapshot (`readThrown`), its summary and its log view. The error is realistic:
 * a store's error class with a code, a message quoting the pair it failed to write (as JSON), a connection error as
 * its cause, and the stacks of both. Prints a Markdown table for docs/benchmarks.md. `REDACTION_ROUNDS` (default 15)
 * and `REDACTION_READS` (reads per round and variant, default 2000) set the run.
 */
import { runMain } from '../scripts/dev/run-main.js'
import { PreparedSecrets } from '../src/errors/redact-secrets.js'
import { REDACTED } from '../src/errors/secret-rules.js'
import { readThrown, type TextRedactor } from '../src/errors/thrown-snapshot.js'

const rounds = Number(process.env.REDACTION_ROUNDS ?? 15)
const reads = Number(process.env.REDACTION_READS ?? 2_000)

/** A token as the portal issues them: 70 lower-case hex characters. */
function token(seed: number): string {
  let out = ''
  for (let index = 0; out.length < 70; index += 1)
    out += ((seed * 2_654_435_761 + index * 40_503) >>> 0).toString(16)
  return out.slice(0, 70)
}

/** The redaction before this change, as `SecretRegistry.redactText` was. */
class LiteralRedactor implements TextRedactor {
  readonly #secrets: string[]
  constructor(secrets: string[]) {
    this.#secrets = secrets
  }
  redactText(text: string): string {
    let out = text
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    }
    return out
  }
}

class VaultWriteError extends Error {
  readonly code = 'VAULT_WRITE_FAILED'
}

/** A store's failure as an application's store throws it: what it failed to write quoted, a connection error as cause. */
function storeError(pair: { accessToken: string; refreshToken: string; applicationToken: string }): Error {
  const cause = Object.assign(new Error('read ECONNRESET'), {
    errno: -104,
    code: 'ECONNRESET',
    syscall: 'read',
  })
  const row = JSON.stringify({
    memberId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
    ...pair,
    expires: 1_800_000_000,
  })
  return new VaultWriteError(`could not write ${row}`, { cause })
}

/** The secret sets measured: a client's registry at its fullest, a new client's, and a fleet's operation. */
const clientSecret = 'Zx9QwErTy12345AbcdefGhijKlmnOpqrStuvWxyz01'
const pair = { accessToken: token(1), refreshToken: token(2), applicationToken: token(3) }
const SETS: Array<{ name: string; secrets: string[] }> = [
  {
    name: 'a fleet operation (client secret, the event and stored pairs: 7 secrets)',
    secrets: [
      clientSecret,
      pair.accessToken,
      pair.refreshToken,
      pair.applicationToken,
      token(4),
      token(5),
      token(6),
    ],
  },
  {
    name: 'a new client (client secret, application token, pair: 4 secrets)',
    secrets: [clientSecret, pair.applicationToken, pair.accessToken, pair.refreshToken],
  },
  {
    name: 'a client after 16 refreshes (4 + 32 old tokens: 36 secrets)',
    secrets: [
      clientSecret,
      pair.applicationToken,
      pair.accessToken,
      pair.refreshToken,
      ...Array.from({ length: 32 }, (_, index) => token(100 + index)),
    ],
  },
]

/** µs per failure read: a fresh error each time (a snapshot is kept per object), made before the clock starts. */
function measure(redactor: () => TextRedactor): number {
  const errors = Array.from({ length: reads }, () => storeError(pair))
  const started = process.hrtime.bigint()
  let sink = 0
  for (const error of errors) {
    const read = readThrown(error, redactor())
    sink += read.summary().message.length + (read.logged() === undefined ? 0 : 1)
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1_000
  if (sink === 0) throw new Error('nothing was read')
  return elapsed / reads
}

/** µs per log line: a short message redacted, as `RedactingLogger` does for every line. */
function measureLine(redactor: () => TextRedactor): number {
  const line = 'v2 crm.deal.list: portal answered QUERY_LIMIT_EXCEEDED, retrying'
  const started = process.hrtime.bigint()
  let sink = 0
  for (let index = 0; index < reads * 10; index += 1) sink += redactor().redactText(line).length
  const elapsed = Number(process.hrtime.bigint() - started) / 1_000
  if (sink === 0) throw new Error('nothing was read')
  return elapsed / (reads * 10)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

async function main(): Promise<number> {
  // The leak this guards against: the current redaction must find what the literal one finds, and more.
  const check = readThrown(storeError(pair), new PreparedSecrets(SETS[0]?.secrets ?? [])).text()
  if (check.includes(pair.accessToken)) throw new Error('the current redaction left a token')
  console.log(`Node ${process.version}, ${rounds} rounds of ${reads} reads per variant, interleaved\n`)
  console.log('| secrets known | what is redacted | literal (before), µs | current, µs | current / literal |')
  console.log('| --- | --- | --- | --- | --- |')
  for (const set of SETS) {
    for (const [what, run] of [
      ['one store failure read (snapshot, summary, log view)', measure],
      ['one log line (64 characters)', measureLine],
    ] as const) {
      const literal: number[] = []
      const current: number[] = []
      // Warm both up, then alternate, so that both see the same machine.
      run(() => new LiteralRedactor(set.secrets))
      run(() => new PreparedSecrets(set.secrets))
      for (let round = 0; round < rounds; round += 1) {
        literal.push(run(() => new LiteralRedactor(set.secrets)))
        current.push(run(() => new PreparedSecrets(set.secrets)))
      }
      const before = median(literal)
      const after = median(current)
      console.log(
        `| ${set.name} | ${what} | ${before.toFixed(2)} | ${after.toFixed(2)} | ${(after / before).toFixed(2)}x |`,
      )
    }
  }
  return 0
}

runMain(main)
