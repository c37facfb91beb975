import type { PortalEmulatorOptions } from './types.js'

/** Options accepted across processes: everything but functions (`now`, method handlers). */
export type PortalEmulatorProcessOptions = Omit<PortalEmulatorOptions, 'now'>

/** Controls the parent may call on the emulator in the child. */
export type ProcessOp =
  | 'issueAuthParams'
  | 'createWebhook'
  | 'getLog'
  | 'clearLog'
  | 'currentTokens'
  | 'expireAccessTokens'
  | 'failOAuth'
  | 'dropConnections'
  | 'delayRequests'
  | 'holdRequests'
  | 'waitForHeld'
  | 'releaseHeldRequests'
  | 'mutateTokenResponses'
  | 'failTokenRequests'
  | 'clearFaults'
  | 'setLatency'
  | 'setRateLimit'
  | 'setOperatingLimit'
  | 'setMethodCost'
  | 'setAdmin'
  | 'close'

/** The read-only facts of a started emulator. */
export interface ProcessEmulatorInfo {
  portalOrigin: string
  clientEndpoint: string
  serverEndpoint: string
  tokenUrl: string
  clientId: string
  clientSecret: string
  memberId: string
  applicationToken: string
}

/** Parent → child messages (the options travel as JSON in the child's first argument). */
export type ParentMessage = { type: 'call'; id: number; op: ProcessOp; args: unknown[] }

/** Child → parent messages. */
export type ChildMessage =
  | { type: 'ready'; info: ProcessEmulatorInfo }
  | { type: 'failed'; message: string }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; message: string }
