import {
  PortalOAuth,
  type PortalOAuthOptions,
  type PortalOAuthParams,
  type RefreshAuthPayload,
} from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'

/** Instances of one test, on a shared store or not, destroyed together after it. */
export interface StoreClients {
  /**
   * A `PortalOAuth` on `pair` of `target` with a memory logger (unless `options` gives one), whose refresh callback
   * pushes to `persisted`.
   */
  client(
    target: PortalEmulator,
    pair: PortalOAuthParams,
    options: PortalOAuthOptions,
    persisted?: RefreshAuthPayload[],
  ): PortalOAuth
  /** Destroys every instance made since the last call. */
  destroyAll(): Promise<void>
}

/** A new set of instances for one test. */
export function createStoreClients(): StoreClients {
  const made: PortalOAuth[] = []
  return {
    client(target, pair, options, persisted = []) {
      const portal = new PortalOAuth(
        pair,
        { clientId: target.clientId, clientSecret: target.clientSecret },
        { logger: createMemoryLogger(), ...options },
      )
      portal.setCallbackRefreshAuth((payload) => {
        persisted.push(payload)
      })
      made.push(portal)
      return portal
    },
    async destroyAll() {
      await Promise.all(made.splice(0).map((portal) => portal.destroy()))
    },
  }
}
