/**
 * A throwaway Sentinel group for the tests: one master, one replica and three sentinels on free ports, no
 * persistence, stopped by their pids. Sentinels run as `redis-server <conf> --sentinel` (what Debian's
 * `redis-sentinel` package runs too), each with its own config file: Sentinel rewrites it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { cli, freePort, HOST, signalAll, startServer, stopAll } from './redis-server.js'

/** The name the sentinels know the master by. */
export const SENTINEL_MASTER_NAME = 'portal'

/** A running Sentinel group. */
export interface SentinelUnderTest {
  /** The sentinels, as clients take them (`sentinels` of ioredis, `sentinelRootNodes` of node-redis). */
  readonly sentinels: Array<{ host: string; port: number }>
  /** The master's name in the sentinels' configuration. */
  readonly name: string
  /** The port of the master now, as the sentinels report it. */
  masterPort(): Promise<number>
  /**
   * Makes the replica the master (`SENTINEL FAILOVER`, no agreement needed) and resolves once the sentinels report it
   * and it answers as a master. The old master becomes its replica a moment later (see {@link whole}).
   */
  failover(): Promise<void>
  /**
   * Resolves once the group is whole again: the old master is the new one's replica, in sync (the state a next
   * failover needs; a sentinel that has not seen it yet is asked again by {@link failover}).
   */
  whole(): Promise<void>
  /**
   * Kills the master (`SIGKILL`: a host that dies, no failover command) and resolves once it is gone; its port
   * refuses connections until {@link restartKilled}. The sentinels fail over by themselves once they agree it is down.
   */
  killMaster(): Promise<void>
  /**
   * Resolves once the sentinels report a master other than the one on `port` and it answers as a master (after
   * {@link killMaster}, the failover they decided by themselves).
   */
  failedOver(port: number): Promise<void>
  /**
   * Starts the killed server again on its port, empty and a master, as a host restarted without persistence comes
   * back; {@link whole} then makes it the new master's replica (the sentinels would, a few seconds later).
   */
  restartKilled(): Promise<void>
  /** Stops every server and sentinel and removes their files. */
  stop(): Promise<void>
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline)
      throw new Error(`Sentinel group: ${what} did not happen within ${timeoutMs} ms`)
    await sleep(50)
  }
}

async function startSentinel(
  dir: string,
  index: number,
  masterPort: number,
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort()
  const conf = join(dir, `sentinel-${index}.conf`)
  await writeFile(
    conf,
    [
      `port ${port}`,
      `bind ${HOST}`,
      `dir ${dir}`,
      `sentinel monitor ${SENTINEL_MASTER_NAME} ${HOST} ${masterPort} 2`,
      `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000`,
      `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 5000`,
      `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
      '',
    ].join('\n'),
  )
  const child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' })
  const orphaned = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  process.once('exit', orphaned)
  child.once('exit', () => process.off('exit', orphaned))
  await until(`sentinel ${index} answering`, async () => (await cli(port, ['PING'])) === 'PONG')
  return { port, child }
}

/** Starts a master, its replica and three sentinels watching them; resolves once the replica is in sync. */
export async function startRedisSentinel(): Promise<SentinelUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-oauth-sentinel-'))
  const children: ChildProcess[] = []
  try {
    // Without the delay Redis 7 waits 5 s before it starts the replica's sync.
    const master = await startServer(dir, ['--dbfilename', 'master.rdb', '--repl-diskless-sync-delay', '0'])
    children.push(master.child)
    // The replica too: it is the master after every other failover.
    const replica = await startServer(dir, [
      '--dbfilename',
      'replica.rdb',
      '--repl-diskless-sync-delay',
      '0',
      '--replicaof',
      HOST,
      String(master.port),
    ])
    children.push(replica.child)
    await until('the replica in sync', async () =>
      (await cli(replica.port, ['INFO', 'replication'])).includes('master_link_status:up'),
    )
    const sentinels: Array<{ host: string; port: number }> = []
    for (const index of [0, 1, 2]) {
      const sentinel = await startSentinel(dir, index, master.port)
      children.push(sentinel.child)
      sentinels.push({ host: HOST, port: sentinel.port })
    }
    const [first] = sentinels as [{ host: string; port: number }]
    // A forced failover needs a replica the sentinel knows; clients need every sentinel to know the master.
    await until('the sentinels knowing the replica', async () =>
      (await cli(first.port, ['SENTINEL', 'REPLICAS', SENTINEL_MASTER_NAME])).includes(String(replica.port)),
    )
    /** The data servers by port: a killed one is replaced by its restart. */
    const servers = new Map([master, replica].map((server) => [server.port, server.child]))
    let killed: number | null = null
    const masterPort = async (): Promise<number> => {
      const answer = await cli(first.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER_NAME])
      return Number(answer.split('\n')[1])
    }
    const failedOver = async (before: number): Promise<number> => {
      let after = before
      await until('the failover', async () => {
        after = await masterPort()
        return after !== before && (await cli(after, ['ROLE'])).startsWith('master')
      })
      // Every sentinel reports the new master (clients may ask any of them).
      await until('every sentinel reporting the new master', async () => {
        const answers = await Promise.all(
          sentinels.map((sentinel) =>
            cli(sentinel.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER_NAME]),
          ),
        )
        return answers.every((answer) => answer.includes(String(after)))
      })
      return after
    }
    return {
      sentinels,
      name: SENTINEL_MASTER_NAME,
      masterPort,
      async failover() {
        const before = await masterPort()
        // A sentinel that has not yet refreshed what it knows of the replica answers NOGOODSLAVE: it is asked again.
        let answer = ''
        await until('SENTINEL FAILOVER accepted', async () => {
          answer = await cli(first.port, ['SENTINEL', 'FAILOVER', SENTINEL_MASTER_NAME])
          if (answer !== 'OK' && !/NOGOODSLAVE|INPROG/.test(answer))
            throw new Error(`SENTINEL FAILOVER answered ${answer}`)
          return answer === 'OK'
        })
        await failedOver(before)
      },
      async killMaster() {
        const port = await masterPort()
        const child = servers.get(port)
        if (!child || child.exitCode !== null || child.signalCode !== null) return
        const exited = new Promise((resolve) => child.once('exit', resolve))
        signalAll([child], 'SIGKILL')
        await exited
        killed = port
      },
      failedOver: async (port) => {
        await failedOver(port)
      },
      async restartKilled() {
        if (killed === null) return
        const port = killed
        killed = null
        const restarted = await startServer(
          dir,
          ['--dbfilename', `restarted-${port}.rdb`, '--repl-diskless-sync-delay', '0'],
          port,
        )
        servers.set(port, restarted.child)
        children.push(restarted.child)
      },
      async whole() {
        const current = await masterPort()
        const other = [...servers.keys()].find((port) => port !== current)!
        // The sentinels turn the old master into a replica once they read its INFO again (every 10 s); told at once.
        const role = await cli(other, ['ROLE'])
        if (!role.startsWith('slave') || !role.includes(String(current)))
          await cli(other, ['REPLICAOF', HOST, String(current)])
        await until('a replica in sync with the master', async () => {
          const info = await cli(current, ['INFO', 'replication'])
          return /^slave\d+:.*state=online/m.test(info)
        })
      },
      stop: () => stopAll(children, dir),
    }
  } catch (error) {
    signalAll(children, 'SIGKILL')
    await stopAll(children, dir)
    throw error
  }
}
