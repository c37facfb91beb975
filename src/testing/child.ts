/**
 * Entry file of the emulator child process started by `startPortalEmulatorProcess()`: starts an emulator with the
 * options it receives over IPC and runs the parent's control calls on it.
 * @module
 */
import { startPortalEmulator } from './emulator.js'
import type {
  ChildMessage,
  ParentMessage,
  PortalEmulatorProcessOptions,
  ProcessOp,
} from './process-protocol.js'
import type {
  EmulatorAuthOverrides,
  EmulatorDelayFilter,
  EmulatorDropFilter,
  EmulatorOAuthFailure,
  EmulatorOperatingLimit,
  EmulatorRateLimit,
  EmulatorTokenFailure,
  EmulatorTokenPatch,
  EmulatorWebhookOptions,
  PortalEmulator,
} from './types.js'

let emulator: PortalEmulator | undefined

function send(message: ChildMessage): void {
  process.send?.(message)
}

function runOp(target: PortalEmulator, op: ProcessOp, args: unknown[]): unknown {
  switch (op) {
    case 'issueAuthParams':
      return target.issueAuthParams(args[0] as EmulatorAuthOverrides | undefined)
    case 'createWebhook':
      return target.createWebhook(args[0] as EmulatorWebhookOptions | undefined)
    case 'getLog':
      return [...target.log.entries]
    case 'clearLog':
      return target.log.clear()
    case 'currentTokens':
      return { accessToken: target.currentAccessToken, refreshToken: target.currentRefreshToken }
    case 'expireAccessTokens':
      return target.expireAccessTokens()
    case 'failOAuth':
      return target.failOAuth(args[0] as EmulatorOAuthFailure, args[1] as number | undefined)
    case 'dropConnections':
      return target.dropConnections(args[0] as number, args[1] as EmulatorDropFilter | undefined)
    case 'delayRequests':
      return target.delayRequests(
        args[0] as number,
        args[1] as number,
        args[2] as EmulatorDelayFilter | undefined,
      )
    case 'holdRequests':
      return target.holdRequests(args[0] as number | undefined, args[1] as EmulatorDelayFilter | undefined)
    case 'waitForHeld':
      return target.waitForHeld(args[0] as number | undefined)
    case 'releaseHeldRequests':
      return target.releaseHeldRequests()
    case 'mutateTokenResponses':
      return target.mutateTokenResponses(args[0] as EmulatorTokenPatch, args[1] as number | undefined)
    case 'failTokenRequests':
      return target.failTokenRequests(args[0] as EmulatorTokenFailure, args[1] as number | undefined)
    case 'clearFaults':
      return target.clearFaults()
    case 'setLatency':
      return target.setLatency(args[0] as number)
    case 'setRateLimit':
      return target.setRateLimit(args[0] as EmulatorRateLimit | false)
    case 'setOperatingLimit':
      return target.setOperatingLimit(args[0] as EmulatorOperatingLimit | false)
    case 'setMethodCost':
      return target.setMethodCost(args[0] as string, args[1] as number)
    case 'setAdmin':
      return target.setAdmin(args[0] as boolean, args[1] as number | undefined)
    case 'close':
      return target.close()
  }
}

async function start(): Promise<void> {
  try {
    const options = JSON.parse(process.argv[2] ?? '{}') as PortalEmulatorProcessOptions
    emulator = await startPortalEmulator(options)
    send({
      type: 'ready',
      info: {
        portalOrigin: emulator.portalOrigin,
        clientEndpoint: emulator.clientEndpoint,
        serverEndpoint: emulator.serverEndpoint,
        tokenUrl: emulator.tokenUrl,
        clientId: emulator.clientId,
        clientSecret: emulator.clientSecret,
        memberId: emulator.memberId,
        applicationToken: emulator.applicationToken,
      },
    })
  } catch (error) {
    send({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
    process.disconnect()
  }
}

async function onMessage(message: ParentMessage): Promise<void> {
  try {
    if (!emulator) throw new Error('The emulator is not started')
    const value = await runOp(emulator, message.op, message.args)
    send({ type: 'result', id: message.id, ok: true, value })
  } catch (error) {
    send({
      type: 'result',
      id: message.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    })
  }
  if (message.op === 'close') process.disconnect()
}

process.on('message', (message: ParentMessage) => {
  void onMessage(message)
})

process.on('disconnect', () => {
  void emulator?.close()
})

void start()
