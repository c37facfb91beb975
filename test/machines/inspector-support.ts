import { createServer } from 'node:net'
import WebSocket from 'ws'

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** A plain WebSocket client of the inspector server that keeps every raw message it relays. */
export interface RawReceiver {
  /** Every message, as the text that went over the socket. */
  readonly messages: string[]
  /** The messages parsed as JSON. */
  parsed(): Array<Record<string, unknown>>
  close(): Promise<void>
}

/** Connects to `url`, retrying while the server is still starting. */
export async function connectRawReceiver(url: string, timeoutMs = 5_000): Promise<RawReceiver> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await connectOnce(url)
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
}

function connectOnce(url: string): Promise<RawReceiver> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    const messages: string[] = []
    socket.on('message', (data) => {
      messages.push(data.toString())
    })
    socket.once('error', reject)
    socket.once('open', () => {
      socket.off('error', reject)
      socket.on('error', () => {})
      resolve({
        messages,
        parsed: () => messages.map((message) => JSON.parse(message) as Record<string, unknown>),
        close: () =>
          new Promise((done) => {
            if (socket.readyState === WebSocket.CLOSED) return done()
            socket.once('close', () => done())
            socket.close()
          }),
      })
    })
  })
}

/**
 * Every string reachable from `root` through own properties, enumerable or not (error messages and causes
 * included), Map and Set entries; each object is visited once.
 */
export function reachableStrings(root: unknown): string[] {
  const strings: string[] = []
  const seen = new WeakSet<object>()
  const queue: unknown[] = [root]
  while (queue.length > 0) {
    const value = queue.pop()
    if (typeof value === 'string') {
      strings.push(value)
      continue
    }
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue
    if (seen.has(value)) continue
    seen.add(value)
    if (value instanceof Map) {
      for (const [key, entry] of value) queue.push(key, entry)
    } else if (value instanceof Set) {
      for (const entry of value) queue.push(entry)
    }
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'string') strings.push(key)
      const descriptor = Object.getOwnPropertyDescriptor(value, key)
      if (descriptor && 'value' in descriptor) queue.push(descriptor.value)
    }
  }
  return strings
}

/** The `[secret name, where]` pairs where a secret shows up in `texts`. */
export function leaks(texts: readonly string[], secrets: Readonly<Record<string, string>>): string[] {
  const found: string[] = []
  for (const [name, secret] of Object.entries(secrets)) {
    const index = texts.findIndex((text) => text.includes(secret))
    if (index >= 0) found.push(`${name} in ${texts[index]?.slice(0, 200)}`)
  }
  return found
}
