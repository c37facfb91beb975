import type { LoggerInterface } from '../logger/logger.js'
import { PortalOAuth } from '../portal-oauth.js'
import { RedisStore } from '../store/redis-store.js'
import { readCredentials } from './credentials.js'
import { CommandFailure, UsageError } from './exit-codes.js'
import type { CliIo } from './io.js'
import { readPairFile, writePairFile } from './pair-file.js'
import { describeUrl, openRedis, storeUrl } from './redis-url.js'

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
export const PORTAL_FLAGS_HELP = `  --pair FILE              the token pair (a PortalOAuthParams as JSON); a refreshed pair is written back
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
    warn: (message) => void io.stderr.write(`portal-oauth: ${message}\n`),
    error: drop,
  }
}

/** A client on the pair of {@link PortalFlags}, persisting every refreshed pair where it came from. */
export interface OpenPortal {
  portal: PortalOAuth
  close(): Promise<void>
}

/** Builds the client: from a pair file (written back after each refresh) or from a store (which keeps it). */
export async function openPortal(command: string, flags: PortalFlags, io: CliIo): Promise<OpenPortal> {
  if ((flags.pair === undefined) === (flags.store === undefined))
    throw new UsageError(`${command}: give the pair with --pair FILE or with --store URL --member ID`)
  const url = flags.store === undefined ? undefined : storeUrl(command, flags.store)
  if (url !== undefined && flags.member === undefined)
    throw new UsageError(`${command}: --store needs --member ID (the portal's member id)`)
  const secret = await readCredentials(
    command,
    { clientId: flags.clientId, clientSecretFile: flags.clientSecretFile },
    io.env,
  )
  const logger = cliLogger(io)
  if (url === undefined) {
    const path = flags.pair!
    const portal = new PortalOAuth(await readPairFile(path), secret, { logger })
    let unsaved: Error | undefined
    portal.setCallbackRefreshAuth(({ b24OAuthParams }) =>
      writePairFile(path, b24OAuthParams).catch((error: Error) => {
        unsaved = error
        throw error
      }),
    )
    return {
      portal,
      close: async () => {
        await portal.destroy()
        // The old pair's refresh token is spent: a run that goes on from the file would find it dead.
        if (unsaved)
          throw new CommandFailure(
            `the refreshed pair could not be written to ${path} (${(unsaved as NodeJS.ErrnoException).code ?? unsaved.message}); ` +
              'the pair left in it is spent: re-authorise the application',
          )
      },
    }
  }
  const redis = await openRedis(url)
  const store = new RedisStore(redis.client, flags.prefix === undefined ? {} : { prefix: flags.prefix })
  const close = async (): Promise<void> => {
    await store.close()
    await redis.close()
  }
  try {
    const pair = await store.load(flags.member!)
    if (!pair) throw new CommandFailure(`--store ${describeUrl(url)} holds no pair of member ${flags.member}`)
    const portal = new PortalOAuth(pair, secret, { store, logger })
    return {
      portal,
      close: async () => {
        await portal.destroy()
        await close()
      },
    }
  } catch (error) {
    await close()
    throw error
  }
}
