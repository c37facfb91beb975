import { afterEach, describe, expect, it } from 'vitest'
import { type FetchLike, MemoryStore, type PortalOAuthParams, SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createMemoryLogger } from '../helpers.js'
import { authField, createFleetRig } from './fleet-rig.js'
import { forgedInstall } from './forged-install.js'

// The order in which a portal's events change the store when they overlap: each is decided against the store as the
// events that came before it left it, whether it waited in the portal's queue or was proved outside it.

const rig = createFleetRig()
afterEach(() => rig.close())

/**
 * A proxy in front of the emulator that keeps the portal's answer to the next `profile` question (a proof's last
 * request) once `hold()` was called, until `release()`: the proof has been answered, its outcome not yet seen.
 */
function profileHolder(): { adapter: FetchLike; hold: () => Promise<void>; release: () => void } {
  let holding = false
  let reached: () => void = () => undefined
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  return {
    adapter: async (input, init) => {
      const response = await fetch(input, init)
      const url = input instanceof Request ? input.url : String(input)
      if (holding && url.endsWith('/rest/profile')) {
        holding = false
        reached()
        await released
      }
      return response
    },
    hold: () => {
      holding = true
      return new Promise<void>((resolve) => {
        reached = resolve
      })
    },
    release: () => release(),
  }
}

/** An installed portal, its fleet's proofs going through a {@link profileHolder}, the clock moved on past the install. */
async function installedBehindHolder(logger?: ReturnType<typeof createMemoryLogger>) {
  const portal = await rig.portal()
  const holder = profileHolder()
  const fleet = rig.fleet(portal, { httpOptions: { adapter: holder.adapter }, ...(logger ? { logger } : {}) })
  await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
  rig.later()
  return { portal, holder, fleet }
}

/** An `ONCRMDEALADD` of `portal` (another event of the portal), with its application token or `applicationToken`. */
function dealAdded(portal: PortalEmulator, applicationToken?: string): URLSearchParams {
  const body = new URLSearchParams(
    portal.installEvent('ONAPPUNINSTALL', applicationToken === undefined ? undefined : { applicationToken }),
  )
  body.set('event', 'ONCRMDEALADD')
  return body
}

describe("a stranger's install proved while an uninstall is taken", () => {
  it('is dropped once its proof comes back: the uninstall that came after it stands', async () => {
    const logger = createMemoryLogger()
    const { portal, holder, fleet } = await installedBehindHolder(logger)
    // A reinstall (another application token) arrives, and its proof is answered; then the portal is uninstalled.
    const reinstall = portal.installEvent('ONAPPINSTALL', { applicationToken: 'c'.repeat(32) })
    const answered = holder.hold()
    const installing = fleet.handleEvent(reinstall)
    await answered
    // A forged reinstall for the same portal, refused while the genuine one is still being proved.
    await expect(
      fleet.handleEvent(
        forgedInstall(portal, {
          memberId: portal.memberId,
          accessToken: 'made-up',
          applicationToken: 'd'.repeat(32),
        }),
      ),
    ).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    expect(await fleet.handleEvent(portal.uninstall())).toMatchObject({ changed: true })
    holder.release()
    expect(await installing).toMatchObject({ event: 'ONAPPINSTALL', changed: false })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
    expect(logger.lines).toContainEqual({
      level: 'info',
      message: 'PortalFleet: ONAPPINSTALL ignored: the portal was uninstalled after it came',
      context: { memberId: portal.memberId },
    })
  })
})

describe("an installed portal's events in arrival order", () => {
  it('an ONAPPUPDATE proved while an ONAPPUNINSTALL came behind it is written first; the uninstall then removes it', async () => {
    const { portal, holder, fleet } = await installedBehindHolder()
    const answered = holder.hold()
    const updating = fleet.handleEvent(portal.installEvent('ONAPPUPDATE'))
    await answered
    const uninstalling = fleet.handleEvent(portal.uninstall())
    holder.release()
    expect(await updating).toMatchObject({ event: 'ONAPPUPDATE', changed: true })
    expect(await uninstalling).toMatchObject({ event: 'ONAPPUNINSTALL', changed: true })
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('an ONAPPUPDATE right behind an ONAPPUNINSTALL does not bring the portal back', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const uninstall = portal.uninstall()
    rig.later()
    // Issued after the uninstall, so its proof succeeds: only the order decides.
    const update = portal.installEvent('ONAPPUPDATE')
    const outcomes = await Promise.allSettled([fleet.handleEvent(uninstall), fleet.handleEvent(update)])
    expect(outcomes).toMatchObject([
      { status: 'fulfilled', value: { event: 'ONAPPUNINSTALL', changed: true } },
      { status: 'rejected', reason: { code: SdkErrorCode.PortalNotInstalled } },
    ])
    expect(await fleet.store.load(portal.memberId)).toBeNull()
  })

  it('another event right behind an ONAPPUNINSTALL finds the portal gone', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const other = dealAdded(portal)
    const outcomes = await Promise.allSettled([
      fleet.handleEvent(portal.uninstall()),
      fleet.handleEvent(other),
    ])
    expect(outcomes).toMatchObject([
      { status: 'fulfilled', value: { event: 'ONAPPUNINSTALL', changed: true } },
      { status: 'rejected', reason: { code: SdkErrorCode.PortalNotInstalled } },
    ])
  })
})

describe("a portal's events and its store", () => {
  it('read it one after another: an event behind one whose read is slow waits, also once the one before settled', async () => {
    const portal = await rig.portal()
    // A store whose second read from now on answers only when let go.
    const store = new (class extends MemoryStore {
      reads = 0
      slow: Promise<void> | null = null
      override async load(memberId: string): Promise<PortalOAuthParams | null> {
        this.reads += 1
        if (this.reads === 2) await this.slow
        return super.load(memberId)
      }
    })()
    const fleet = rig.fleet(portal, { store })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const other = dealAdded(portal)
    let letGo: () => void = () => undefined
    store.slow = new Promise<void>((resolve) => {
      letGo = resolve
    })
    store.reads = 0
    const first = fleet.handleEvent(other)
    const second = fleet.handleEvent(other)
    expect(await first).toMatchObject({ changed: false })
    const third = fleet.handleEvent(other)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(store.reads).toBe(2)
    letGo()
    expect(await Promise.all([second, third])).toMatchObject([{ changed: false }, { changed: false }])
    expect(store.reads).toBe(3)
  })
})

describe('events that wait for an install being proved', () => {
  it('behind a reinstall being proved, an event with its application token is taken once it is; one with neither token is refused', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    portal.delayRequests(150, 1, { server: 'oauth', method: 'app.info' })
    rig.later()
    const fresh = 'c'.repeat(32)
    const outcomes = await Promise.allSettled([
      fleet.handleEvent(portal.installEvent('ONAPPINSTALL', { applicationToken: fresh })),
      fleet.handleEvent(dealAdded(portal, fresh)),
      fleet.handleEvent(portal.installEvent('ONAPPUPDATE', { applicationToken: 'e'.repeat(32) })),
    ])
    expect(outcomes).toMatchObject([
      { status: 'fulfilled', value: { event: 'ONAPPINSTALL', changed: true } },
      { status: 'fulfilled', value: { event: 'ONCRMDEALADD', changed: false } },
      { status: 'rejected', reason: { code: SdkErrorCode.ApplicationTokenMismatch } },
    ])
    expect((await fleet.store.load(portal.memberId))?.applicationToken).toBe(fresh)
  })

  it('an event with the application token of a reinstall still proved waits for it after a forged install was refused', async () => {
    const { portal, holder, fleet } = await installedBehindHolder()
    const fresh = 'c'.repeat(32)
    const answered = holder.hold()
    const reinstalling = fleet.handleEvent(portal.installEvent('ONAPPINSTALL', { applicationToken: fresh }))
    await answered
    await expect(
      fleet.handleEvent(
        forgedInstall(portal, { memberId: portal.memberId, accessToken: 'made-up', applicationToken: fresh }),
      ),
    ).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    const other = dealAdded(portal, fresh)
    const handling = fleet.handleEvent(other)
    holder.release()
    expect(await reinstalling).toMatchObject({ changed: true })
    expect(await handling).toMatchObject({ event: 'ONCRMDEALADD', changed: false })
  })

  it('an uninstall is no install: an update with another application token is refused at once while it is asked', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    // The uninstall's question to the portal is kept there.
    portal.holdRequests(1, { server: 'portal', method: 'app.info' })
    const uninstalling = fleet.handleEvent(portal.uninstall())
    await portal.waitForHeld(1)
    rig.later()
    const refused = fleet
      .handleEvent(portal.installEvent('ONAPPUPDATE', { applicationToken: 'e'.repeat(32) }))
      .then(
        () => 'taken',
        (error: { code?: string }) => error.code,
      )
    const waited = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3000))
    expect(await Promise.race([refused, waited])).toBe(SdkErrorCode.ApplicationTokenMismatch)
    portal.releaseHeldRequests()
    expect(await uninstalling).toMatchObject({ changed: true })
  })
})

describe('an event whose pair is not newer than the stored one', () => {
  it('is ignored without a proof: the OAuth server is not asked', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const install = portal.installEvent('ONAPPINSTALL')
    await fleet.handleEvent(install)
    const asked = portal.log.entries.filter((entry) => entry.server === 'oauth').length
    expect(await fleet.handleEvent(install)).toMatchObject({ changed: false })
    expect(portal.log.entries.filter((entry) => entry.server === 'oauth').length).toBe(asked)
    expect((await fleet.store.load(portal.memberId))?.accessToken).toBe(authField(install, 'access_token'))
  })
})
