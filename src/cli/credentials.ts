import { readFile } from 'node:fs/promises'
import type { PortalOAuthSecret } from '../types/auth.js'
import { CommandFailure, UsageError } from './exit-codes.js'

/** The environment variable of the application's OAuth client id. */
export const CLIENT_ID_ENV = 'PORTAL_OAUTH_CLIENT_ID'
/** The environment variable of the application's OAuth client secret. */
export const CLIENT_SECRET_ENV = 'PORTAL_OAUTH_CLIENT_SECRET'

/** The help lines of the flags {@link readCredentials} reads. */
export const CREDENTIALS_HELP = `  --client-id ID           OAuth client id (default: $${CLIENT_ID_ENV})
  --client-secret-file F   read the OAuth client secret from F (default: $${CLIENT_SECRET_ENV})`

async function fromFile(path: string): Promise<string> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new CommandFailure(
      `--client-secret-file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code})`,
    )
  }
  const secret = text.trim()
  if (secret === '') throw new CommandFailure(`--client-secret-file ${path}: the file is empty`)
  return secret
}

/**
 * The application's credentials: the client id from `--client-id` or the environment, the secret from a file or the
 * environment, never from a flag.
 */
export async function readCredentials(
  command: string,
  flags: { clientId: string | undefined; clientSecretFile: string | undefined },
  env: NodeJS.ProcessEnv,
): Promise<PortalOAuthSecret> {
  const clientId = flags.clientId ?? env[CLIENT_ID_ENV]
  if (clientId === undefined || clientId === '')
    throw new UsageError(
      `${command}: the OAuth client id is missing: set ${CLIENT_ID_ENV} or give --client-id`,
    )
  const clientSecret =
    flags.clientSecretFile !== undefined ? await fromFile(flags.clientSecretFile) : env[CLIENT_SECRET_ENV]
  if (clientSecret === undefined || clientSecret === '')
    throw new UsageError(
      `${command}: the OAuth client secret is missing: set ${CLIENT_SECRET_ENV} or give --client-secret-file`,
    )
  return { clientId, clientSecret }
}
