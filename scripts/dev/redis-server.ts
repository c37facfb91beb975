/**
 * Throwaway `redis-server` processes on free ports, with no persistence, stopped by their pid: for the Redis tests,
 * the `fleet` figures of `npm run bench` and `npm run demo:fleet`.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Whether `redis-server` and `redis-cli` can be run on this machine. */
export const redisInstalled =
  spawnSync('redis-server', ['--version']).status === 0 && spawnSync('redis-cli', ['--version']).status === 0

/** A throwaway Redis server or cluster, started by a test, the bench or a demo. */
export interface RedisUnderTest {
  /** `host:port` of every master. */
  readonly nodes: Array<{ host: string; port: number }>
  /** Runs `redis-cli` against one node (the first by default); its stdout. */
  cli(args: string[], node?: number): Promise<string>
  /** Empties every master, as a server restarted without persistence would be. */
  flushAll(): Promise<void>
  /**
   * Freezes every server (`SIGSTOP`) until `resume()`: connections stay open and commands queue unanswered, as on
   * a host that stalls (swap, a long fork, a paused VM).
   */
  pause(): void
  /** Lets paused servers run again (`SIGCONT`); what they received meanwhile runs now, in order. */
  resume(): void
  /**
   * One server only: kills it (`SIGKILL`; connections are refused until {@link restart}). Without persistence its
   * data is gone.
   */
  kill?(): Promise<void>
  /** One server only: starts it again on the same port, empty. */
  restart?(): Promise<void>
  /** Stops every server by its pid and removes its files. */
  stop(): Promise<void>
}

/** The address every throwaway server listens on. */
export const HOST = '127.0.0.1'

/** A port that is free now, and whose cluster bus port (+10 000) is too. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await listenOnce(0)
    if (port < 55_000 && (await listenOnce(port + 10_000).catch(() => 0)) !== 0) return port
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, HOST, () => {
      const address = server.address()
      const bound = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(bound))
    })
  })
}

/** Runs `redis-cli` against the server (or sentinel) on `port`; its stdout, trimmed. */
export async function cli(port: number, args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args])
  return stdout.trim()
}

/** Starts `redis-server` with `extra` arguments (on `given` or a free port) and waits until it answers. */
export async function startServer(
  dir: string,
  extra: string[],
  given?: number,
): Promise<{ port: number; child: ChildProcess }> {
  const port = given ?? (await freePort())
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    { stdio: 'ignore' },
  )
  // A process that ends without stopping it (a crash, a failed hook) takes the server with it.
  const orphaned = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  process.once('exit', orphaned)
  child.once('exit', () => process.off('exit', orphaned))
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${child.exitCode}`)
    if ((await cli(port, ['PING']).catch(() => '')) === 'PONG') return { port, child }
    if (attempt > 200) throw new Error(`redis-server on port ${port} did not answer`)
    await sleep(25)
  }
}

/** Sends `signal` to every child still running. */
export function signalAll(children: ChildProcess[], signal: NodeJS.Signals): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
}

/** Stops every child by its pid (SIGTERM) and removes `dir`. */
export async function stopAll(children: ChildProcess[], dir: string): Promise<void> {
  // A paused server would not handle SIGTERM until it runs again.
  signalAll(children, 'SIGCONT')
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM')
        }),
    ),
  )
  await rm(dir, { recursive: true, force: true })
}

/** Starts one `redis-server` on a free port, with no persistence. */
export async function startRedisServer(): Promise<RedisUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-oauth-redis-'))
  const started = await startServer(dir, [])
  const { port } = started
  let { child } = started
  return {
    nodes: [{ host: HOST, port }],
    cli: (args) => cli(port, args),
    flushAll: async () => {
      await cli(port, ['FLUSHALL'])
    },
    pause: () => signalAll([child], 'SIGSTOP'),
    resume: () => signalAll([child], 'SIGCONT'),
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      signalAll([child], 'SIGKILL')
      await exited
    },
    restart: async () => {
      child = (await startServer(dir, [], port)).child
    },
    stop: () => stopAll([child], dir),
  }
}

/** Starts three masters with cluster mode on and joins them into one cluster (no replicas). */
export async function startRedisCluster(): Promise<RedisUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-oauth-cluster-'))
  const started: Array<{ port: number; child: ChildProcess }> = []
  try {
    for (const index of [0, 1, 2]) {
      started.push(
        await startServer(dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${index}.conf`),
          '--cluster-node-timeout',
          '2000',
        ]),
      )
    }
    const ports = started.map((server) => server.port)
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `${HOST}:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ])
    // Every node must know every slot before a client can route to it.
    for (const port of ports) {
      for (
        let attempt = 0;
        !(await cli(port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok');
        attempt += 1
      ) {
        if (attempt > 400) throw new Error('the Redis cluster did not become ready')
        await sleep(25)
      }
    }
  } catch (error) {
    await stopAll(
      started.map((server) => server.child),
      dir,
    )
    throw error
  }
  const ports = started.map((server) => server.port)
  const children = started.map((server) => server.child)
  return {
    nodes: ports.map((port) => ({ host: HOST, port })),
    cli: (args, node = 0) => cli(ports[node]!, args),
    flushAll: async () => {
      await Promise.all(ports.map((port) => cli(port, ['FLUSHALL'])))
    },
    pause: () => signalAll(children, 'SIGSTOP'),
    resume: () => signalAll(children, 'SIGCONT'),
    stop: () => stopAll(children, dir),
  }
}
