import { open, readFile, rm, stat, utimes } from 'node:fs/promises'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { CommandFailure } from './exit-codes.js'

/** A lock whose file was not touched for this long is taken over: its holder died without removing it, ms. */
export const PAIR_LOCK_STALE_MS = 30_000
/** How often the holder touches the lock file, so that a long command keeps it, ms. */
const HEARTBEAT_MS = PAIR_LOCK_STALE_MS / 3
/** Pause between two looks at a held lock, ms (up to half more at random: waiters do not come back together). */
const POLL_MS = 100

/** What a lock file holds: who took it, for the message of a waiter and for the stale check on this host. */
interface LockOwner {
  host: string
  pid: number
  since: string
}

/** A pair file's lock, held: {@link release} removes it. */
export interface HeldPairLock {
  /** The lock file, `<pair file>.lock`. */
  readonly path: string
  /** Stops the heartbeat and removes the lock file. */
  release(): Promise<void>
}

/** The error code of a failed file system call, or its message. */
function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockOwner
  } catch {
    return undefined
  }
}

/** Whether process `pid` of this host is gone (`kill(pid, 0)` answers ESRCH). */
function deadHere(owner: LockOwner | undefined): boolean {
  if (owner?.host !== hostname() || !Number.isInteger(owner.pid)) return false
  try {
    process.kill(owner.pid, 0)
    return false
  } catch (error) {
    return codeOf(error) === 'ESRCH'
  }
}

/**
 * Removes the lock file at `path` when its holder is gone: a process of this host that no longer runs, or a file
 * nobody touched for {@link PAIR_LOCK_STALE_MS}. Resolves to whether the lock may be free now.
 */
async function removeIfStale(path: string): Promise<boolean> {
  let seen: Awaited<ReturnType<typeof stat>>
  try {
    seen = await stat(path)
  } catch (error) {
    return codeOf(error) === 'ENOENT'
  }
  const owner = await readOwner(path)
  if (!deadHere(owner) && Date.now() - seen.mtimeMs < PAIR_LOCK_STALE_MS) return false
  // Removes it only when it is still the file looked at: another waiter may have taken it over meanwhile.
  const again = await stat(path).catch(() => undefined)
  if (again?.ino === seen.ino && again.mtimeMs === seen.mtimeMs) await rm(path, { force: true })
  return true
}

/**
 * Takes the lock of the pair file at `pairPath`: a file beside it, `<pair file>.lock`, created only if absent
 * (`O_EXCL`), holding the host, pid and time of its holder. Processes that share the pair file take turns: a waiter
 * looks again every {@link POLL_MS} ms until the holder removes the file or is gone (see {@link removeIfStale}), or
 * `signal` aborts. The holder touches the file every {@link HEARTBEAT_MS} ms while it holds it.
 */
export async function lockPairFile(
  pairPath: string,
  signal: AbortSignal,
  onWait: (holder: string) => void,
): Promise<HeldPairLock> {
  const path = `${pairPath}.lock`
  const owner: LockOwner = { host: hostname(), pid: process.pid, since: new Date().toISOString() }
  const content = `${JSON.stringify(owner)}\n`
  let told = false
  for (;;) {
    try {
      const file = await open(path, 'wx', 0o600)
      try {
        await file.writeFile(content)
      } finally {
        await file.close()
      }
      break
    } catch (error) {
      if (codeOf(error) !== 'EEXIST')
        throw new CommandFailure(
          `--pair ${pairPath}: cannot create its lock file ${path} (${codeOf(error)}): a refreshed pair could not be written beside it either, so nothing was sent`,
        )
    }
    if (await removeIfStale(path)) continue
    if (!told) {
      told = true
      const holder = await readOwner(path)
      onWait(holder ? `${holder.host}:${holder.pid}` : 'another process')
    }
    await sleep(POLL_MS * (1 + Math.random() / 2), undefined, { signal }).catch(() => undefined)
    if (signal.aborted)
      throw new CommandFailure(`--pair ${pairPath}: cancelled while waiting for its lock ${path}`)
  }
  const heartbeat = setInterval(() => {
    const now = new Date()
    utimes(path, now, now).catch(() => undefined)
  }, HEARTBEAT_MS)
  heartbeat.unref()
  return {
    path,
    release: async () => {
      clearInterval(heartbeat)
      // Only its own lock: one taken over as stale after a pause of this process belongs to another by now.
      const held = await readFile(path, 'utf8').catch(() => undefined)
      if (held === content) await rm(path, { force: true })
    },
  }
}
