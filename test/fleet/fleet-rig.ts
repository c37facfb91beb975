import { MemoryStore, PortalFleet, type PortalFleetOptions, type PortalOAuth } from '../../src/index.js'
import {
  type PortalEmulator,
  type PortalEmulatorOptions,
  startPortalEmulator,
} from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'

/** What a fleet test tears down after itself. */
export interface FleetRig {
  emulators: PortalEmulator[]
  fleets: PortalFleet[]
  /** Starts an emulator (one portal) that the rig closes; its clock runs `later()`'s offset ahead of the real one. */
  portal(options?: PortalEmulatorOptions): Promise<PortalEmulator>
  /**
   * Moves the emulators' clocks `ms` ahead (default a second): a pair issued after it expires later, so an event
   * carrying it is newer than the pairs issued before (pairs issued in one second cannot be ordered).
   */
  later(ms?: number): void
  /** A fleet with the emulator's credentials and a memory logger; `store` defaults to a new `MemoryStore`. */
  fleet(target: PortalEmulator, options?: Partial<PortalFleetOptions>): PortalFleet
  close(): Promise<void>
}

/** A rig whose emulators share one client id and secret, as the portals of one market application do. */
export function createFleetRig(): FleetRig {
  const clientSecret = 'fleet-test-client-secret-0123456789abcdef'
  let offsetMs = 0
  const rig: FleetRig = {
    emulators: [],
    fleets: [],
    async portal(options) {
      const now = (): number => Date.now() + offsetMs
      const emulator = await startPortalEmulator({ clientSecret, now, ...options })
      rig.emulators.push(emulator)
      return emulator
    },
    fleet(target, options) {
      const fleet = new PortalFleet({
        oAuthSecret: { clientId: target.clientId, clientSecret: target.clientSecret },
        store: new MemoryStore(),
        logger: createMemoryLogger(),
        ...options,
      })
      rig.fleets.push(fleet)
      return fleet
    },
    later(ms = 1000) {
      offsetMs += ms
    },
    async close() {
      await Promise.all(rig.fleets.splice(0).map((fleet) => fleet.destroy()))
      await Promise.all(rig.emulators.splice(0).map((emulator) => emulator.close()))
    },
  }
  return rig
}

/** Field `auth[name]` of a raw event body. */
export function authField(body: string, name: string): string | null {
  return new URLSearchParams(body).get(`auth[${name}]`)
}

/** Resolves once `portal` was destroyed (its calls reject with `JSSDK_CLIENT_DESTROYED`). */
export async function destroyed(portal: PortalOAuth): Promise<void> {
  for (;;) {
    // A call refused before it starts (an empty method name): JSSDK_CLIENT_DESTROYED once destroyed, otherwise
    // JSSDK_INVALID_ARGUMENT, and the client is never busy with it, which would keep the idle sweep from releasing it.
    const outcome = await portal.actions.v2.call.make({ unchecked: true, method: '', params: {} }).then(
      () => null,
      (error: unknown) => error,
    )
    if ((outcome as { code?: string } | null)?.code === 'JSSDK_CLIENT_DESTROYED') return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
