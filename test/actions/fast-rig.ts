import {
  type AbstractPortalOptions,
  createNullLogger,
  PortalHook,
  type RestrictionParamsInput,
} from '../../src/index.js'
import { type PortalEmulatorOptions, startPortalEmulator } from '../../src/testing/index.js'
import { type Rig, startRig } from '../helpers.js'

/**
 * Client limits high enough that paging and chunking tests are not paced by the default 50 / 2 per s bucket, and
 * short retry delays.
 */
export const FAST_CLIENT: RestrictionParamsInput = {
  rateLimit: { burstLimit: 100_000, drainRate: 100_000 },
  retryDelay: 10,
}

/** An OAuth rig whose emulator has no leaky bucket and whose client is not paced. */
export function startFastRig(emulator: PortalEmulatorOptions = {}): Promise<Rig> {
  return startRig({
    emulator: { rateLimit: false, ...emulator },
    client: { restrictionParams: FAST_CLIENT },
  })
}

/** An emulator and a `PortalHook` on one of its webhooks. */
export interface HookRig {
  emulator: Awaited<ReturnType<typeof startPortalEmulator>>
  hook: PortalHook
  /** The webhook URL `{origin}/rest/{userId}/{secret}/`. */
  url: string
  /** The secret part of the URL. */
  secret: string
  close: () => Promise<void>
}

/** Starts an emulator without a bucket and a `PortalHook` made from one of its webhook URLs. */
export async function startHookRig(
  emulator: PortalEmulatorOptions = {},
  client: AbstractPortalOptions = {},
): Promise<HookRig> {
  const started = await startPortalEmulator({ rateLimit: false, ...emulator })
  const url = started.createWebhook()
  const secret = url.split('/').at(-2) ?? ''
  const hook = PortalHook.fromWebhookUrl(url, {
    logger: createNullLogger(),
    restrictionParams: FAST_CLIENT,
    ...client,
  })
  return {
    emulator: started,
    hook,
    url,
    secret,
    close: async () => {
      await hook.destroy()
      await started.close()
    },
  }
}
