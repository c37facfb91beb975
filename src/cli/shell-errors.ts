import { RefreshTokenError } from '../errors/refresh-token-error.js'
import { SdkError, SdkErrorCode } from '../errors/sdk-error.js'
import { TRUSTED_SERVERS_ENV } from '../trust/oauth-servers.js'
import { CommandFailure } from './exit-codes.js'

/** The library's option names in its messages, and the flag a shell user types for each. */
const FLAG_OF_OPTION: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bcustomKeyForResult\b/g, '--result-key'],
  [/\bcursorIdKey\b|\bidKey\b/g, '--id-key'],
  [/\brequestId\b/g, '--request-id'],
]

/** A library message in the words of the command line: its option names become the flags that set them. */
export function inShellWords(message: string): string {
  // `v2 fetchList crm.item.list: ...` names the library's action, which the shell user did not call.
  const own = message.replace(/^v[23] (?:fetchList|fetchTail|callList|callTail) /, '')
  return FLAG_OF_OPTION.reduce((text, [option, flag]) => text.replace(option, flag), own)
}

/** `the pair's OAuth server http://host is not trusted`, with the variable that trusts it. */
function untrusted(serverEndpoint: string): CommandFailure {
  const origin = URL.canParse(serverEndpoint) ? new URL(serverEndpoint).origin : serverEndpoint
  return new CommandFailure(
    `the pair's OAuth server ${origin} is not trusted: if it is yours, set ${TRUSTED_SERVERS_ENV}=${origin} ` +
      "(the client secret and refresh tokens go only to the vendor's OAuth servers and those it names)",
  )
}

/**
 * A refused refresh token, said for a shell user: what it means and what to do, with the OAuth server's code and
 * description. `source` names where the pair lives (`--pair tokens.json`).
 */
function refused(error: RefreshTokenError, source: string): CommandFailure {
  const answer = `${error.code}${error.description ? `: ${error.description}` : ''}, HTTP ${error.status}`
  if (error.code !== 'invalid_grant')
    return new CommandFailure(`the OAuth server refused to refresh the pair of ${source} (${answer})`)
  return new CommandFailure(
    `the OAuth server refused the refresh token of ${source} (${answer}): it was spent or revoked. ` +
      `A program that holds a copy of this pair (another host, a backup restored) may have refreshed it first; ` +
      `re-authorise the application${source.startsWith('--pair ') ? ` and put its new pair in ${source.slice('--pair '.length)}` : ' (its install event stores the new pair)'}`,
  )
}

/**
 * The failure of a command on a portal in the words of the shell: the flag or variable to act on, no class name.
 * `source` names where the pair lives, `serverEndpoint` its OAuth server.
 */
export function shellFailure(error: unknown, source: string, serverEndpoint: string): unknown {
  if (error instanceof CommandFailure) return error
  if (error instanceof RefreshTokenError) return refused(error, source)
  if (error instanceof SdkError && error.code === SdkErrorCode.UntrustedOAuthServer)
    return untrusted(serverEndpoint)
  if (error instanceof Error) return new CommandFailure(inShellWords(error.message), { cause: error })
  return error
}
