import { SHARED_STORE_DOCS } from '../auth/unshared-pair-hint.js'
import type { LoggerInterface } from '../logger/logger.js'
import { PortalOAuth } from '../portal-oauth.js'
import { RedisStore } from '../store/redis-store.js'
import type { PortalOAuthParams, PortalOAuthSecret } from '../types/auth.js'
import { ConnectFailures } from './connect-failures.js'
import { readCredentials } from './credentials.js'
import { CommandFailure, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { readPairFile, writePairFile } from './pair-file.js'
import { lockPairFile } from './pair-lock.js'
import { describeUrl, openRedis, prefixFlag, storeUrl } from './redis-url.js'
import { shellFailure } from './shell-errors.js'

/** The flags that say where a command's pair lives. */
export interface PortalFlags {
  pair?: string | undefined
  store?: string | undefined
  member?: string | undefined
  prefix?: string | undefined
  clientId?: string | undefined
  clientSecretFile?: string | undefined
}

/** The `parseArgs` options of {@link PortalFlags}, for a command that opens a portal. */
export const PORTAL_FLAG_OPTIONS = {
  pair: { type: 'string' },
  store: { type: 'string' },
  member: { type: 'string' },
  prefix: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret-file': { type: 'string' },
} as const

/** {@link PortalFlags} from the values `parseArgs` read with {@link PORTAL_FLAG_OPTIONS}. */
export function portalFlags(values: {
  pair?: string | undefined
  store?: string | undefined
  member?: string | undefined
  prefix?: string | undefined
  'client-id'?: string | undefined
  'client-secret-file'?: string | undefined
}): PortalFlags {
  return {
    pair: values.pair,
    store: values.store,
    member: values.member,
    prefix: values.prefix,
    clientId: values['client-id'],
    clientSecretFile: values['client-secret-file'],
  }
}

/** The help lines of {@link PortalFlags}. */
export const PORTAL_FLAGS_HELP = `  --pair FILE              the token pair (a PortalOAuthParams as JSON); a refreshed pair is written back.
                           Commands on one FILE take turns (FILE.lock beside it); its directory must be writable
  --store URL              or: a RedisStore at redis://[user:password@]host:port[/db] ...
  --member ID              ... and the portal's member id in it
  --prefix P               the store's key prefix (default: portal-oauth:)`

/**
 * The library's warnings (a scope the pair lacks, a deprecated method) as one stderr line each; its errors are the
 * command's failure, which it reports itself.
 */
function cliLogger(io: CliIo): LoggerInterface {
  const drop = (): void => undefined
  return {
    debug: drop,
    info: drop,
    warn: (message, meta) => {
      // The library's advice to share a store: the command's own message of a refused refresh says what to do.
      if (meta?.docs === SHARED_STORE_DOCS) return
      io.stderr.write(`portal-oauth: ${message}\n`)
    },
    error: drop,
  }
}

/** A client on the pair of {@link PortalFlags}, persisting every refreshed pair where it came from. */
export interface OpenPortal {
  portal: PortalOAuth
  /**
   * The signal of the command's calls: SIGINT or SIGTERM, or a connection nobody answers (refused, host not found),
   * which ends the command at once instead of after the library's retries.
   */
  signal: AbortSignal
  /** A failure of the command's calls in the shell's words: the flag or variable to act on, where it could not connect. */
  explain(error: unknown): unknown
  close(): Promise<void>
}

/**
 * A client on `pair`: `explain` and `signal` of {@link OpenPortal} for it. `source` names where the pair lives in
 * messages, `release` frees what holds it (a store, a lock) after the client.
 */
function portalOn(
  pair: PortalOAuthParams,
  secret: PortalOAuthSecret,
  options: { store?: RedisStore; logger: LoggerInterface },
  source: string,
  io: CliIo,
  release: () => Promise<void>,
): OpenPortal {
  const unreachable = new ConnectFailures()
  let portal: PortalOAuth
  try {
    portal = new PortalOAuth(pair, secret, options)
  } catch (error) {
    unreachable.close()
    throw shellFailure(error, source, pair.serverEndpoint)
  }
  return {
    portal,
    signal: AbortSignal.any([io.signal, unreachable.signal]),
    explain: (error) => {
      if (unreachable.failure !== undefined && !io.signal.aborted)
        return new CommandFailure(unreachable.failure)
      return shellFailure(error, source, pair.serverEndpoint)
    },
    close: async () => {
      unreachable.close()
      try {
        await portal.destroy()
      } finally {
        await release()
      }
    },
  }
}

/** A client on the pair file at `path`, taken in turns with other processes (its lock), written back after a refresh. */
async function openPairFile(
  path: string,
  secret: PortalOAuthSecret,
  logger: LoggerInterface,
  io: CliIo,
): Promise<OpenPortal> {
  // A file that cannot be read or is no pair is told as such, before its directory is asked for a lock file.
  await readPairFile(path)
  const lock = await lockPairFile(path, io.signal, (holder) => {
    if (io.stderrIsTTY) io.stderr.write(`portal-oauth: waiting for ${holder}, which uses ${path}\n`)
  })
  let unsaved: Error | undefined
  try {
    // Read again under the lock: the process that held it may have refreshed the pair.
    const opened = portalOn(await readPairFile(path), secret, { logger }, `--pair ${path}`, io, () =>
      lock.release(),
    )
    opened.portal.setCallbackRefreshAuth(({ b24OAuthParams }) =>
      writePairFile(path, b24OAuthParams).catch((error: Error) => {
        unsaved = error
        throw error
      }),
    )
    return {
      ...opened,
      close: async () => {
        await opened.close()
        // The old pair's refresh token is spent: a run that goes on from the file would find it dead.
        if (unsaved)
          throw new CommandFailure(
            `the refreshed pair could not be written to ${path} (${(unsaved as NodeJS.ErrnoException).code ?? unsaved.message}); ` +
              'the pair left in it is spent: re-authorise the application',
          )
      },
    }
  } catch (error) {
    await lock.release()
    throw error
  }
}

/** Builds the client: from a pair file (written back after each refresh) or from a store (which keeps it). */
export async function openPortal(command: string, flags: PortalFlags, io: CliIo): Promise<OpenPortal> {
  if ((flags.pair === undefined) === (flags.store === undefined))
    throw new UsageError(`${command}: give the pair with --pair FILE or with --store URL --member ID`)
  const url = flags.store === undefined ? undefined : storeUrl(command, flags.store)
  if (url !== undefined && flags.member === undefined)
    throw new UsageError(`${command}: --store needs --member ID (the portal's member id)`)
  const prefix = prefixFlag(command, flags.prefix)
  const secret = await readCredentials(
    command,
    { clientId: flags.clientId, clientSecretFile: flags.clientSecretFile },
    io.env,
  )
  const logger = cliLogger(io)
  if (url === undefined) return openPairFile(flags.pair!, secret, logger, io)
  const redis = await openRedis(url)
  const store = new RedisStore(redis.client, prefix)
  const close = async (): Promise<void> => {
    await store.close()
    await redis.close()
  }
  try {
    const pair = await store.load(flags.member!)
    if (!pair) throw new CommandFailure(`--store ${describeUrl(url)} holds no pair of member ${flags.member}`)
    const source = `member ${flags.member} of --store ${describeUrl(url)}`
    return portalOn(pair, secret, { store, logger }, source, io, close)
  } catch (error) {
    await close()
    throw error
  }
}
