/**
 * A worker process forked with `--import tsx`, driven over IPC: the fleet figures of `npm run bench` and
 * `npm run load:fleet` start theirs with it.
 */
import { type ChildProcess, fork } from 'node:child_process'

/** A forked worker: its answers in order, and how to stop it. */
export interface ForkedWorker<To, From> {
  readonly child: ChildProcess
  /** Its next answer (the ones `notice` took aside excepted); rejects once the process exited. */
  next(): Promise<From>
  /** Sends it an order. */
  send(message: To): void
  /** Sends `exitMessage` and resolves when the process is gone (SIGKILL when the IPC channel is closed). */
  stop(exitMessage: To): Promise<void>
}

/**
 * Forks `script` with `input` as JSON in `argv[2]` (`execArgv` after `--import tsx`, `env` over this process's
 * environment); its stdout and stderr go to this process's. A message for which `notice` returns true (a progress
 * report, say) is not queued for `next()`.
 */
export function forkWorker<To, From>(
  script: string,
  input: unknown,
  options: { execArgv?: string[]; env?: Record<string, string>; notice?: (message: From) => boolean } = {},
): ForkedWorker<To, From> {
  const child = fork(script, [JSON.stringify(input)], {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? [])],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const queue: From[] = []
  const waiting: Array<(message: From) => void> = []
  child.on('message', (message: From) => {
    if (options.notice?.(message)) return
    const waiter = waiting.shift()
    if (waiter) waiter(message)
    else queue.push(message)
  })
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`worker ${script} exited with ${code ?? signal}`))),
  )
  exited.catch(() => undefined)
  return {
    child,
    next: () => {
      const queued = queue.shift()
      if (queued !== undefined) return Promise.resolve(queued)
      return Promise.race([new Promise<From>((resolve) => waiting.push(resolve)), exited])
    },
    send: (message) => {
      child.send(message as object)
    },
    stop: (exitMessage) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        if (child.connected) child.send(exitMessage as object)
        else child.kill('SIGKILL')
      }),
  }
}
