/**
 * Child of `npm run bench:vendor`: a minimal portal in its own process, answering every v2 POST under `/rest/` with
 * `profile`'s answer and nothing else (no token check, no bucket, no log), so that the server's work is the same
 * whatever client calls it. The answer's shape comes as JSON in `argv[2]` (see bench/lib/answer-shapes.ts); the
 * child prints its port as JSON once it listens and exits when its stdin closes.
 */
import { createServer } from 'node:http'
import { type AnswerShape, answerBody } from '../lib/answer-shapes.js'

const shape = JSON.parse(process.argv[2] ?? '{}') as AnswerShape

const server = createServer((request, response) => {
  // The body is read and dropped: a real portal reads it too, and an unread body would stall keep-alive.
  request.resume()
  request.once('end', () => {
    const body = answerBody(shape, Date.now())
    response.writeHead(200, {
      ...shape.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    })
    response.end(body)
  })
})
server.keepAliveTimeout = 5_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  )
})
process.stdin.resume()
process.stdin.once('end', () => server.close(() => process.exit(0)))
