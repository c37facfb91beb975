/**
 * The floor of the CPU figures: a raw `undici.request` POST over an `Agent` with the default adapter's pool settings,
 * its answer parsed. Imports undici alone, so that a process measuring only the floor loads nothing else.
 */
import { Agent, request } from 'undici'
import type { CpuVariant } from './cpu.js'

/** Connections of the floor's pool: the CPU figures' concurrency, as the client's pool is sized for it. */
const CONNECTIONS = 32

/** A raw POST of `body` (JSON) to `url`, answered 200 with a `result`; anything else throws. */
export function rawPostVariant(url: string, body: string): CpuVariant {
  const agent = new Agent({ connections: CONNECTIONS, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 })
  const headers = { 'content-type': 'application/json', accept: 'application/json' }
  return {
    name: 'raw undici.request (floor)',
    call: async () => {
      const answer = await request(url, { method: 'POST', headers, body, dispatcher: agent })
      const payload = (await answer.body.json()) as { result?: unknown }
      if (answer.statusCode !== 200 || payload.result === undefined) throw new Error('raw call failed')
    },
    close: () => agent.close(),
  }
}
