/** The parent's side of farm-process.ts: an emulator farm in a child process. */
import { type ChildProcess, fork } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { EmulatorAuthParams } from '../../src/testing/index.js'

const CHILD = fileURLToPath(new URL('./farm-process.ts', import.meta.url))
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** What the child says. */
export type FarmChildMessage =
  | {
      type: 'ready'
      oauthServer: string
      clientId: string
      clientSecret: string
      pairs: EmulatorAuthParams[]
    }
  | { type: 'log'; rest: number; tokens: number }
  | { type: 'expired' }

/** What the child is told: count (and forget) the requests so far, expire every access token, or close. */
export type FarmParentMessage = { type: 'log' } | { type: 'expire' } | { type: 'exit' }

/** A farm of `count` portals in a child process. */
export interface FarmChild {
  readonly oauthServer: string
  readonly secret: { clientId: string; clientSecret: string }
  /** A pair of each portal, issued at start. */
  readonly pairs: readonly EmulatorAuthParams[]
  /** REST requests answered 200 and token requests since the last look. */
  log(): Promise<{ rest: number; tokens: number }>
  /** Expires every portal's access tokens: their next calls are answered `expired_token`. */
  expire(): Promise<void>
  close(): Promise<void>
}

/** Starts the child and waits for its portals. */
export async function startFarmChild(count: number): Promise<FarmChild> {
  const child: ChildProcess = fork(CHILD, [String(count)], {
    execArgv: ['--import', TSX],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`farm-process exited with ${code}`))),
  )
  exited.catch(() => undefined)
  const next = (): Promise<FarmChildMessage> =>
    Promise.race([new Promise<FarmChildMessage>((resolve) => child.once('message', resolve)), exited])
  const ready = await next()
  if (ready.type !== 'ready') throw new Error(`farm-process said ${ready.type} first`)
  return {
    oauthServer: ready.oauthServer,
    secret: { clientId: ready.clientId, clientSecret: ready.clientSecret },
    pairs: ready.pairs,
    async log() {
      const answer = next()
      child.send({ type: 'log' } satisfies FarmParentMessage)
      const message = await answer
      if (message.type !== 'log') throw new Error(`farm-process said ${message.type}, not log`)
      return { rest: message.rest, tokens: message.tokens }
    },
    async expire() {
      const answer = next()
      child.send({ type: 'expire' } satisfies FarmParentMessage)
      if ((await answer).type !== 'expired') throw new Error('farm-process did not expire the tokens')
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.send({ type: 'exit' } satisfies FarmParentMessage)
      }),
  }
}
