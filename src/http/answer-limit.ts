/**
 * How much of an answer the client reads. Every answer of the OAuth server and of the portal is read up to a limit
 * far above any real one; past it, reading stops, the body is cancelled (its connection closed) and the request
 * fails with `JSSDK_ANSWER_TOO_LARGE`. ky reads no body of a successful answer with a limit (only error bodies, at
 * 10 MiB), and fetch has none: this is the reader for adapters that hand a stream back. The default adapter is
 * bounded by undici itself (`maxResponseSize` of its pool, see undici-fetch.ts).
 */

/** Bytes in a mebibyte. */
const MIB = 1024 * 1024

/**
 * Largest answer of the OAuth server read, bytes: 1 MiB; also of the portal's `profile` that proves an event's user
 * an administrator. A token answer is about 600 bytes and an `app.info` or `profile` answer about 1 KB
 * (spec/protocol.md), so this is a thousand times the largest real one.
 */
export const OAUTH_ANSWER_LIMIT_BYTES = MIB

/**
 * Largest answer of a REST call read by default, bytes: 128 MiB (`httpOptions.maxAnswerBytes`). The largest answers
 * measured (`scripts/dev/hostile-answer-figures.ts --sizes`): a v2 batch of 50 list pages of 50 of the vendor's
 * documented deals is 4.9 MB, 33 MB with 20 custom text fields filled and 76 MB with 50; a v3 batch of 50 pages of
 * 1 000 tasks is 16 MB with the documented select and 179 MB with thirty fields and a description (which needs the
 * option raised).
 */
export const DEFAULT_REST_ANSWER_LIMIT_BYTES = 128 * MIB

/**
 * Largest `httpOptions.maxAnswerBytes`: 256 MiB. Reading an answer takes about three times its size (the bytes, the
 * string, the parsed value), and V8 makes no string much longer than 512 MiB.
 */
export const MAX_REST_ANSWER_LIMIT_BYTES = 256 * MIB

/** An answer passed its limit; each caller turns it into its own `AjaxError` (`JSSDK_ANSWER_TOO_LARGE`). */
export class AnswerTooLarge extends Error {
  /** The limit passed, bytes. */
  readonly limit: number

  constructor(limit: number) {
    super(`the answer passed the limit of ${describeBytes(limit)}`)
    this.name = 'AnswerTooLarge'
    this.limit = limit
  }
}

/** A byte count as people read it: `1 MiB`, `64 KiB`, or bytes. */
export function describeBytes(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/** Lets the reader go; a cancel that fails changes nothing for the caller. */
function cancel(reader: ReadableStreamDefaultReader<Uint8Array>, reason?: unknown): void {
  reader.cancel(reason).catch(() => {})
}

/**
 * The body of `response` as text (UTF-8, as `Response.text()` reads it), read up to `limit` bytes: past it, or when
 * a `Content-Length` says so before any byte is read, the body is cancelled and {@link AnswerTooLarge} thrown. When
 * `signal` aborts, reading stops too and the promise rejects with its reason: the deadline covers the body, also for
 * an adapter whose stream does not heed the request's signal.
 */
export async function readAnswerText(
  response: Response,
  limit: number,
  signal?: AbortSignal,
): Promise<string> {
  const { body } = response
  if (!body) return ''
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (declared > limit) {
    body.cancel().catch(() => {})
    throw new AnswerTooLarge(limit)
  }
  signal?.throwIfAborted()
  const reader = body.getReader()
  const onAbort = (): void => cancel(reader, signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      signal?.throwIfAborted()
      if (done) break
      total += value.byteLength
      if (total > limit) {
        cancel(reader)
        throw new AnswerTooLarge(limit)
      }
      chunks.push(value)
    }
  } catch (error) {
    // A stream that errors because the signal aborted it fails with the signal's reason, as the request would.
    if (signal?.aborted) throw signal.reason
    throw error
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
  return new TextDecoder().decode(joined(chunks, total))
}

/** The chunks as one array (the only chunk itself when there is one). */
function joined(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const whole = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    whole.set(chunk, at)
    at += chunk.byteLength
  }
  return whole
}
