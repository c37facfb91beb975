/**
 * The emulated portals of `npm run load:fleet`: an emulator farm (each portal with its own member id, token chain and
 * bucket, all served by two listeners), all of one application, and what their request logs told.
 */
import type { PortalFleet, PortalOAuthSecret } from '../../src/index.js'
import {
  type PortalEmulator,
  type PortalEmulatorFarm,
  type PortalEmulatorFarmOptions,
  startPortalEmulators,
} from '../../src/testing/index.js'

/** Installs and log reads that run at once. */
const PARALLEL = 50

/** What the portals' logs said since the last {@link PortalFarm.resetCounts}. */
export interface FarmCounts {
  /** Refresh requests (`grant_type=refresh_token`) per member id. */
  refreshes: Map<string, number>
  /** Requests answered with an error, by error code (or HTTP status). */
  rejected: Map<string, number>
}

async function inBatches<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  for (let index = 0; index < items.length; index += PARALLEL)
    await Promise.all(items.slice(index, index + PARALLEL).map(task))
}

/** `count` emulated portals of one application (one client id and secret). */
export class PortalFarm {
  readonly emulators: readonly PortalEmulator[]
  readonly secret: PortalOAuthSecret
  readonly #farm: PortalEmulatorFarm
  #counts: FarmCounts = { refreshes: new Map(), rejected: new Map() }

  private constructor(farm: PortalEmulatorFarm, secret: PortalOAuthSecret) {
    this.#farm = farm
    this.emulators = farm.emulators
    this.secret = secret
  }

  /**
   * Starts `count` portals behind two loopback listeners (one for their REST APIs, one for their OAuth server): ten
   * thousand portals take two ports and the workers' pooled connections, not a listener each.
   */
  static async start(count: number, options: PortalEmulatorFarmOptions = {}): Promise<PortalFarm> {
    const clientSecret = 'load-fleet-client-secret-0000000000000000'
    const farm = await startPortalEmulators(count, { ...options, clientSecret })
    return new PortalFarm(farm, { clientId: farm.emulators[0]?.clientId ?? '', clientSecret })
  }

  /** Every portal's member id, in the order of {@link emulators}. */
  get memberIds(): string[] {
    return this.emulators.map((emulator) => emulator.memberId)
  }

  /**
   * Installs the portals through their `ONAPPINSTALL` events, handled by `fleet`; `expiresIn` (s) is the lifetime of
   * the pair each event carries, the emulator's default (an hour) when absent.
   */
  async install(fleet: PortalFleet, emulators: readonly PortalEmulator[], expiresIn?: number): Promise<void> {
    await inBatches(emulators, async (emulator) => {
      await fleet.handleEvent(
        emulator.installEvent('ONAPPINSTALL', expiresIn === undefined ? {} : { expiresIn }),
      )
    })
  }

  /** Counts what the logs hold and empties them, so that a long run keeps no more than a few seconds of requests. */
  harvest(): void {
    for (const emulator of this.emulators) {
      const refreshes = emulator.log.refreshRequests().length
      if (refreshes > 0)
        this.#counts.refreshes.set(
          emulator.memberId,
          (this.#counts.refreshes.get(emulator.memberId) ?? 0) + refreshes,
        )
      for (const entry of emulator.log.rejected()) {
        const code = entry.errorCode ?? `HTTP ${entry.status}`
        this.#counts.rejected.set(code, (this.#counts.rejected.get(code) ?? 0) + 1)
      }
      emulator.log.clear()
    }
  }

  /** What the logs told since the last reset, harvested now. */
  counts(): FarmCounts {
    this.harvest()
    return this.#counts
  }

  /** Forgets the logs and the counts (after the warm-up). */
  resetCounts(): void {
    for (const emulator of this.emulators) emulator.log.clear()
    this.#counts = { refreshes: new Map(), rejected: new Map() }
  }

  /** Closes every portal and both listeners. */
  close(): Promise<void> {
    return this.#farm.close()
  }
}
