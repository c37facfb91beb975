import type { PortalEmulator } from '../../src/testing/index.js'

/** The refresh token each refresh request presented, in the order they reached the OAuth server. */
export function presentedTokens(emulator: PortalEmulator): string[] {
  const tokens: string[] = []
  for (const entry of emulator.log.tokenRequests()) {
    // Read from the body as it came: a request the server held and the client gave up on still counts.
    const body = new URLSearchParams(entry.rawBody)
    const token = body.get('refresh_token')
    if (body.get('grant_type') === 'refresh_token' && token) tokens.push(token)
  }
  return tokens
}
