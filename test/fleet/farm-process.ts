/**
 * A child process serving an emulator farm (`startPortalEmulators`), so that the portals' state stays out of the
 * heap a test measures. Started by farm-child.ts with the portal count in `argv[2]`; sends every portal's pair once
 * listening, then its request log counts on demand, expires every access token on `expire`, and closes on `exit`.
 */
import { startPortalEmulators } from '../../src/testing/index.js'
import type { FarmChildMessage, FarmParentMessage } from './farm-child.js'

const count = Number(process.argv[2])
const farm = await startPortalEmulators(count, { rateLimit: false })

function send(message: FarmChildMessage): void {
  process.send?.(message)
}

process.on('message', async (message: FarmParentMessage) => {
  if (message.type === 'expire') {
    for (const emulator of farm.emulators) emulator.expireAccessTokens()
    send({ type: 'expired' })
  } else if (message.type === 'log') {
    let rest = 0
    let tokens = 0
    for (const emulator of farm.emulators) {
      for (const entry of emulator.log.entries) {
        if (entry.kind === 'token') tokens += 1
        else if (entry.status === 200) rest += 1
      }
      emulator.log.clear()
    }
    send({ type: 'log', rest, tokens })
  } else {
    await farm.close()
    process.exit(0)
  }
})
send({
  type: 'ready',
  oauthServer: farm.oauthServer,
  clientId: farm.emulators[0]!.clientId,
  clientSecret: farm.emulators[0]!.clientSecret,
  pairs: farm.emulators.map((emulator) => emulator.issueAuthParams()),
})
