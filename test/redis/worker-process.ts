/** The parent's side of a worker process of the Redis tests (test/redis/worker.ts). */
import { type ChildProcess, fork } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { FromWorker, ToWorker, WorkerConfig } from './worker.js'

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url))
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** A worker process and the messages it sent. */
export class Worker {
  readonly child: ChildProcess
  readonly #seen: FromWorker[] = []
  readonly #waiting: Array<{ type: FromWorker['type']; resolve: (message: FromWorker) => void }> = []
  readonly exited: Promise<void>

  constructor(config: WorkerConfig) {
    this.child = fork(WORKER, [JSON.stringify(config)], {
      execArgv: ['--import', TSX],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()))
    this.child.on('message', (message: FromWorker) => {
      const index = this.#waiting.findIndex((waiter) => waiter.type === message.type)
      if (index < 0) this.#seen.push(message)
      else this.#waiting.splice(index, 1)[0]!.resolve(message)
    })
  }

  /** The next message of `type` (one already received counts). */
  next<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    const index = this.#seen.findIndex((message) => message.type === type)
    if (index >= 0) return Promise.resolve(this.#seen.splice(index, 1)[0] as Extract<FromWorker, { type: T }>)
    return new Promise((resolve) =>
      this.#waiting.push({
        type,
        resolve: (message) => resolve(message as Extract<FromWorker, { type: T }>),
      }),
    )
  }

  send(message: ToWorker): void {
    this.child.send(message)
  }

  async run(calls: number): Promise<Extract<FromWorker, { type: 'done' }>> {
    const done = this.next('done')
    this.send({ type: 'go', calls })
    return done
  }

  /** Starts a call every `intervalMs`; {@link stopStream} ends it and gives the outcomes. */
  stream(intervalMs: number): void {
    this.send({ type: 'stream', intervalMs })
  }

  /** Ends the calls {@link stream} started; resolves once every one of them settled. */
  stopStream(): Promise<Extract<FromWorker, { type: 'streamed' }>> {
    const streamed = this.next('streamed')
    this.send({ type: 'stop' })
    return streamed
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.child.connected) this.send({ type: 'exit' })
      else this.child.kill('SIGKILL')
    }
    await this.exited
  }
}
