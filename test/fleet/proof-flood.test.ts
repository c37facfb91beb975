import { afterEach, describe, expect, it, vi } from 'vitest'
import { type FetchLike, SdkErrorCode } from '../../src/index.js'
import { createMemoryLogger } from '../helpers.js'
import { authField, createFleetRig } from './fleet-rig.js'
import { forgedInstall, proofRequests, strangerId } from './forged-install.js'

/**
 * A flood of forged install events, against the emulator's real OAuth server on loopback: the proofs they cost are
 * bounded, and events of installed portals whose application token matches do not wait behind them. The bounds are
 * the documented ones (docs/fleet.md, "Floods"): 16 strangers' proofs at a time per OAuth server, 256 waiting.
 */

const AT_ONCE = 16
const WAITING = 256
/** Events of one installed portal with its application token: proved one at a time, 8 waiting. */
const KNOWN_WAITING = 8

const rig = createFleetRig()
afterEach(() => rig.close())

/** How events settled so far. */
interface Tally {
  /** Refused after their proof came back (the OAuth server did not confirm them). */
  refused: number
  /** Refused without a proof: too many were waiting. */
  shed: number
  other: unknown[]
}

/** Starts `handleEvent` for every body and tallies how each settles; resolves when all have. */
function fire(
  handle: (body: URLSearchParams) => Promise<unknown>,
  bodies: URLSearchParams[],
): {
  tally: Tally
  settled: Promise<void>
} {
  const tally: Tally = { refused: 0, shed: 0, other: [] }
  const settled = Promise.all(
    bodies.map((body) =>
      handle(body).then(
        (result) => {
          tally.other.push(result)
        },
        (error: { code?: string; message?: string }) => {
          if (error.code === SdkErrorCode.EventNotProved && /too many/.test(error.message ?? ''))
            tally.shed += 1
          else if (error.code === SdkErrorCode.EventNotProved) tally.refused += 1
          else tally.other.push(error)
        },
      ),
    ),
  ).then(() => undefined)
  return { tally, settled }
}

describe('a flood of forged installs', () => {
  it(`is proved ${AT_ONCE} at a time, ${WAITING} wait, the rest are refused at once; nothing is stored`, async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = proofRequests(portal)
    portal.holdRequests(100_000, { server: 'oauth', method: 'app.info' })
    const count = 1000
    const bodies = Array.from({ length: count }, (_, index) =>
      forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-${index}` }),
    )
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    await portal.waitForHeld(AT_ONCE)
    // The overflow is refused while the OAuth server has answered nothing.
    await vi.waitFor(() => expect(tally.shed).toBe(count - AT_ONCE - WAITING), { timeout: 3000 })
    expect(proofRequests(portal) - before).toBe(AT_ONCE)
    portal.releaseHeldRequests()
    await settled
    expect(tally).toEqual({ refused: AT_ONCE + WAITING, shed: count - AT_ONCE - WAITING, other: [] })
    expect(proofRequests(portal) - before).toBe(AT_ONCE + WAITING)
    for (let index = 0; index < count; index += 1)
      expect(await fleet.store.load(strangerId(index))).toBeNull()
  })

  it("does not delay an installed portal's ONAPPUPDATE: it settles while every stranger's proof is held", async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const before = proofRequests(portal)
    // The strangers' first proofs stay at the OAuth server; the proofs after them are answered at once.
    portal.holdRequests(AT_ONCE, { server: 'oauth', method: 'app.info' })
    const bodies = Array.from({ length: 1000 }, (_, index) =>
      forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-${index}` }),
    )
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    await portal.waitForHeld(AT_ONCE)
    rig.later()
    const update = portal.installEvent('ONAPPUPDATE')
    expect(await fleet.handleEvent(update)).toMatchObject({ event: 'ONAPPUPDATE', changed: true })
    // No stranger's proof has come back yet, and none but the held ones and the update's own were sent.
    expect(tally.refused).toBe(0)
    expect(proofRequests(portal) - before).toBe(AT_ONCE + 1)
    expect((await fleet.store.load(portal.memberId))?.accessToken).toBe(authField(update, 'access_token'))
    portal.releaseHeldRequests()
    await settled
    expect(tally.other).toEqual([])
  })

  it('with one made-up token costs one app.info request, and repeats within a minute cost none', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    portal.delayRequests(100, 100_000, { server: 'oauth', method: 'app.info' })
    const body = forgedInstall(portal, { memberId: strangerId(1), accessToken: 'one-made-up-token' })
    const copies = (): URLSearchParams[] => Array.from({ length: 200 }, () => new URLSearchParams(body))
    const first = fire((copy) => fleet.handleEvent(copy), copies())
    await first.settled
    expect(first.tally).toEqual({ refused: 200, shed: 0, other: [] })
    expect(proofRequests(portal)).toBe(1)
    const again = fire((copy) => fleet.handleEvent(copy), copies())
    await again.settled
    expect(again.tally).toEqual({ refused: 200, shed: 0, other: [] })
    expect(proofRequests(portal)).toBe(1)
    expect(await fleet.store.load(strangerId(1))).toBeNull()
  })
})

describe('what the operator is told of a flood', () => {
  it('a warning when a lane starts refusing events unchecked, and one with their count once it drained', async () => {
    const portal = await rig.portal()
    const logger = createMemoryLogger()
    const fleet = rig.fleet(portal, { logger })
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const server = new URL(portal.serverEndpoint).origin
    portal.holdRequests(100_000, { server: 'oauth', method: 'app.info' })
    const strangers = Array.from({ length: AT_ONCE + WAITING + 3 }, (_, index) =>
      forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-${index}` }),
    )
    rig.later()
    const known = Array.from({ length: 1 + KNOWN_WAITING + 2 }, (_, index) => {
      const body = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
      body.set('auth[access_token]', `made-up-by-a-user-${index}`)
      return body
    })
    const flood = fire((body) => fleet.handleEvent(body), [...strangers, ...known])
    await vi.waitFor(() => expect(flood.tally.shed).toBe(3 + 2), { timeout: 3000 })
    const warnings = (): unknown[] => logger.lines.filter((line) => line.level === 'warn')
    expect(warnings()).toEqual([
      {
        level: 'warn',
        message: 'PortalFleet: too many unproved install events; refusing more until they are checked',
        context: { server },
      },
      {
        level: 'warn',
        message: `PortalFleet: too many events of portal ${portal.memberId}; refusing more until they are checked`,
        context: { server, memberId: portal.memberId },
      },
    ])
    portal.releaseHeldRequests()
    await flood.settled
    expect(warnings().slice(2)).toEqual(
      expect.arrayContaining([
        {
          level: 'warn',
          message: 'PortalFleet: unproved install events were refused unchecked',
          context: { server, shed: 3 },
        },
        {
          level: 'warn',
          message: `PortalFleet: events of portal ${portal.memberId} were refused unchecked`,
          context: { server, memberId: portal.memberId, shed: 2 },
        },
      ]),
    )
    expect(warnings()).toHaveLength(4)
    // A second flood, once the first drained: told again, its own count.
    const again = fire(
      (body) => fleet.handleEvent(body),
      Array.from({ length: AT_ONCE + WAITING + 1 }, (_, index) =>
        forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-again-${index}` }),
      ),
    )
    await again.settled
    expect(warnings().slice(4)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/too many unproved install events/) }),
      expect.objectContaining({ context: { server, shed: 1 } }),
    ])
  })
})

describe('a fleet with a smaller pool (httpOptions.connections)', () => {
  it.each([
    [5, 2],
    [1, 1],
  ])('of %i connections proves %i strangers at a time', async (connections, atOnce) => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, { httpOptions: { connections } })
    portal.holdRequests(100_000, { server: 'oauth', method: 'app.info' })
    const bodies = Array.from({ length: 6 }, (_, index) =>
      forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-${index}` }),
    )
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    await portal.waitForHeld(atOnce)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(proofRequests(portal)).toBe(atOnce)
    portal.releaseHeldRequests()
    await settled
    expect(tally).toEqual({ refused: 6, shed: 0, other: [] })
  })
})

describe('destroy() during a flood', () => {
  it("refuses the strangers' events still waiting at once and waits only for the proofs in flight", async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    portal.holdRequests(AT_ONCE, { server: 'oauth', method: 'app.info' })
    const bodies = Array.from({ length: 100 }, (_, index) =>
      forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-${index}` }),
    )
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    await portal.waitForHeld(AT_ONCE)
    const destroying = fleet.destroy()
    await vi.waitFor(() => expect(tally.other).toHaveLength(100 - AT_ONCE), { timeout: 3000 })
    expect(tally.other.every((error) => (error as { code?: string }).code === SdkErrorCode.Destroyed)).toBe(
      true,
    )
    portal.releaseHeldRequests()
    await destroying
    await settled
    expect(tally.refused).toBe(AT_ONCE)
    expect(proofRequests(portal)).toBe(AT_ONCE)
  })
})

describe('forged events for one installed portal', () => {
  it('do not delay its genuine ONAPPUPDATE, and leave its pair and application token as they were', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    portal.delayRequests(100, 100_000, { server: 'oauth', method: 'app.info' })
    // Forged reinstalls: the portal's member id, another application token, made-up access tokens.
    const bodies = Array.from({ length: 100 }, (_, index) =>
      forgedInstall(portal, {
        memberId: portal.memberId,
        accessToken: `forged-${index}`,
        applicationToken: 'a'.repeat(32),
      }),
    )
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    rig.later()
    const update = portal.installEvent('ONAPPUPDATE')
    expect(await fleet.handleEvent(update)).toMatchObject({ changed: true })
    // Today's serial queue proved all 100 first (100 x 100 ms); now at most a round or two of strangers' proofs.
    expect(tally.refused).toBeLessThan(2 * AT_ONCE)
    await settled
    expect(tally).toEqual({ refused: 100, shed: 0, other: [] })
    const stored = await fleet.store.load(portal.memberId)
    expect(stored?.accessToken).toBe(authField(update, 'access_token'))
    expect(stored?.applicationToken).toBe(portal.applicationToken)
  })
})

describe("made-up events carrying an installed portal's application token", () => {
  it('are proved one at a time for that portal, 8 wait, the rest are refused at once; nothing is stored', async () => {
    // Any user of the application's page reads the application token: such events are known, but bounded per portal.
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const stored = await fleet.store.load(portal.memberId)
    const before = proofRequests(portal)
    portal.holdRequests(100_000, { server: 'oauth', method: 'app.info' })
    rig.later()
    const bodies = Array.from({ length: 100 }, (_, index) => {
      const body = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
      body.set('auth[access_token]', `made-up-by-a-user-${index}`)
      return body
    })
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    await portal.waitForHeld(1)
    await vi.waitFor(() => expect(tally.shed).toBe(100 - 1 - KNOWN_WAITING), { timeout: 3000 })
    expect(proofRequests(portal) - before).toBe(1)
    portal.releaseHeldRequests()
    await settled
    expect(tally).toEqual({ refused: 1 + KNOWN_WAITING, shed: 100 - 1 - KNOWN_WAITING, other: [] })
    expect(proofRequests(portal) - before).toBe(1 + KNOWN_WAITING)
    expect(await fleet.store.load(portal.memberId)).toEqual(stored)
  })
})

describe("an installed portal's own lane", () => {
  it("is its own: another portal's events do not wait behind its proof", async () => {
    const held = await rig.portal()
    const free = await rig.portal()
    const fleet = rig.fleet(held)
    await fleet.handleEvent(held.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(free.installEvent('ONAPPINSTALL'))
    held.holdRequests(1, { server: 'oauth', method: 'app.info' })
    rig.later()
    const waiting = fleet.handleEvent(held.installEvent('ONAPPUPDATE'))
    await held.waitForHeld(1)
    expect(await fleet.handleEvent(free.installEvent('ONAPPUPDATE'))).toMatchObject({ changed: true })
    held.releaseHeldRequests()
    expect(await waiting).toMatchObject({ changed: true })
  })

  it('takes event after event: each one proved leaves it, and the 10th in a row is proved too', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    rig.later()
    for (let index = 0; index < 1 + KNOWN_WAITING + 1; index += 1) {
      const body = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
      body.set('auth[access_token]', `made-up-one-after-another-${index}`)
      await expect(fleet.handleEvent(body)).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
        message: expect.stringContaining('did not confirm'),
      })
    }
    expect(proofRequests(portal)).toBe(1 + 1 + KNOWN_WAITING + 1)
  })

  it('says whose events are too many when it refuses one unchecked', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    portal.holdRequests(100_000, { server: 'oauth', method: 'app.info' })
    rig.later()
    const made = (index: number): URLSearchParams => {
      const body = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
      body.set('auth[access_token]', `made-up-by-a-user-${index}`)
      return body
    }
    const first = Array.from({ length: 1 + KNOWN_WAITING }, (_, index) => fleet.handleEvent(made(index)))
    await expect(fleet.handleEvent(made(99))).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
      message: `handleEvent: portal ${portal.memberId}: not checked: too many events of this portal are waiting for the OAuth server (1 checked at a time, ${KNOWN_WAITING} waiting); nothing was changed`,
    })
    const strangers = Array.from({ length: AT_ONCE + WAITING }, (_, index) =>
      fleet.handleEvent(
        forgedInstall(portal, { memberId: strangerId(index), accessToken: `forged-${index}` }),
      ),
    )
    await expect(
      fleet.handleEvent(forgedInstall(portal, { memberId: strangerId(999), accessToken: 'one-too-many' })),
    ).rejects.toMatchObject({
      message: `handleEvent: portal ${strangerId(999)}: not checked: too many unproved events are waiting for the OAuth server (${AT_ONCE} checked at a time, ${WAITING} waiting); nothing was changed`,
    })
    portal.releaseHeldRequests()
    await Promise.allSettled([...first, ...strangers])
  })
})

describe('a proof that succeeded', () => {
  it('is never reused: the same token again, after the portal revoked it, is refused', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const install = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    await fleet.handleEvent(install)
    // Every token the portal issued stops working; the same event comes again as a reinstall (another application
    // token) claiming a later expiry.
    portal.uninstall()
    install.set('auth[expires]', String(Number(install.get('auth[expires]')) + 60))
    install.set('auth[application_token]', 'c'.repeat(32))
    await expect(fleet.handleEvent(install)).rejects.toMatchObject({ code: SdkErrorCode.EventNotProved })
    expect(proofRequests(portal)).toBe(2)
  })
})

describe("destroy() while a known portal's events wait", () => {
  it('refuses them at once, without waiting for the proof in front of them', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    portal.holdRequests(1, { server: 'oauth', method: 'app.info' })
    rig.later()
    const bodies = Array.from({ length: 5 }, (_, index) => {
      const body = new URLSearchParams(portal.installEvent('ONAPPUPDATE'))
      body.set('auth[access_token]', `made-up-by-a-user-${index}`)
      return body
    })
    const { tally, settled } = fire((body) => fleet.handleEvent(body), bodies)
    await portal.waitForHeld(1)
    const destroying = fleet.destroy()
    await vi.waitFor(() => expect(tally.other).toHaveLength(4), { timeout: 3000 })
    expect(tally.other.every((error) => (error as { code?: string }).code === SdkErrorCode.Destroyed)).toBe(
      true,
    )
    portal.releaseHeldRequests()
    await destroying
    await settled
    expect(tally.refused).toBe(1)
  })
})

describe('the refusal of an event destroy() found waiting', () => {
  it('says the fleet was destroyed', async () => {
    const portal = await rig.portal()
    // Two connections: one stranger's proof at a time, the next waits.
    const fleet = rig.fleet(portal, { httpOptions: { connections: 2 } })
    portal.holdRequests(1, { server: 'oauth', method: 'app.info' })
    const inFlight = fleet.handleEvent(
      forgedInstall(portal, { memberId: strangerId(1), accessToken: 'first' }),
    )
    await portal.waitForHeld(1)
    const waiting = fleet.handleEvent(
      forgedInstall(portal, { memberId: strangerId(2), accessToken: 'second' }),
    )
    const destroying = fleet.destroy()
    await expect(waiting).rejects.toMatchObject({
      code: SdkErrorCode.Destroyed,
      message: 'PortalFleet was destroyed; create a new one',
    })
    portal.releaseHeldRequests()
    await Promise.allSettled([inFlight, destroying])
  })
})

describe('what is remembered as refused', () => {
  it('a proof that could not reach the OAuth server is not: the next identical event asks again', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    const body = forgedInstall(portal, { memberId: strangerId(2), accessToken: 'made-up' })
    portal.dropConnections(1, { server: 'oauth', method: 'app.info' })
    await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
      code: SdkErrorCode.NetworkError,
    })
    await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
    })
    expect(proofRequests(portal)).toBe(2)
    // Refused by the OAuth server: remembered.
    await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
    })
    expect(proofRequests(portal)).toBe(2)
  })

  it.each([502, 500, 429])(
    'an answer of %i is not (the server failed or was busy, it refused nothing); a refusal it answered later is',
    async (status) => {
      const portal = await rig.portal()
      let failures = 1
      // A proxy in front of the OAuth server that fails once.
      const adapter: FetchLike = async (input, init) => {
        const url = input instanceof Request ? input.url : String(input)
        if (url.includes('/app.info') && failures > 0) {
          failures -= 1
          return new Response('<html>Bad gateway</html>', { status })
        }
        return fetch(input, init)
      }
      const fleet = rig.fleet(portal, { httpOptions: { adapter } })
      const body = forgedInstall(portal, { memberId: strangerId(3), accessToken: 'made-up' })
      await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
      })
      expect(proofRequests(portal)).toBe(0)
      await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
      })
      expect(proofRequests(portal)).toBe(1)
      await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
      })
      expect(proofRequests(portal)).toBe(1)
    },
  )

  it('for a minute: its last millisecond refuses a repeat unsent, the next one asks again', async () => {
    // Only the clock is fake, and stands still: every timer is real.
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const start = Date.now()
      const portal = await rig.portal()
      const fleet = rig.fleet(portal)
      const body = forgedInstall(portal, { memberId: strangerId(4), accessToken: 'made-up' })
      const refused = async (): Promise<void> => {
        await expect(fleet.handleEvent(new URLSearchParams(body))).rejects.toMatchObject({
          code: SdkErrorCode.EventNotProved,
        })
      }
      await refused()
      expect(proofRequests(portal)).toBe(1)
      vi.setSystemTime(start + 59_999)
      await refused()
      expect(proofRequests(portal)).toBe(1)
      vi.setSystemTime(start + 60_000)
      await refused()
      expect(proofRequests(portal)).toBe(2)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('events that arrive while their portal is being installed', () => {
  it('an ONAPPUPDATE right behind the first ONAPPINSTALL is taken once the install is: the newer pair stays', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    // The install's proof is slow: the update arrives while the store holds nothing for the portal yet.
    portal.delayRequests(150, 1, { server: 'oauth', method: 'app.info' })
    const install = portal.installEvent('ONAPPINSTALL')
    rig.later()
    const update = portal.installEvent('ONAPPUPDATE')
    const outcomes = await Promise.allSettled([fleet.handleEvent(install), fleet.handleEvent(update)])
    expect(outcomes).toMatchObject([
      { status: 'fulfilled', value: { event: 'ONAPPINSTALL', changed: true } },
      { status: 'fulfilled', value: { event: 'ONAPPUPDATE', changed: true } },
    ])
    expect((await fleet.store.load(portal.memberId))?.accessToken).toBe(authField(update, 'access_token'))
  })

  it('an event with the application token of a reinstall being proved waits for it; a late one with the old token leaves nothing', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    // An update delivered late: issued before the reinstall, with the old application token.
    rig.later()
    const late = portal.installEvent('ONAPPUPDATE')
    portal.delayRequests(150, 1, { server: 'oauth', method: 'app.info' })
    rig.later()
    const fresh = 'c'.repeat(32)
    const reinstall = portal.installEvent('ONAPPINSTALL', { applicationToken: fresh })
    rig.later()
    const update = portal.installEvent('ONAPPUPDATE', { applicationToken: fresh })
    const outcomes = await Promise.allSettled([
      fleet.handleEvent(reinstall),
      fleet.handleEvent(update),
      fleet.handleEvent(late),
    ])
    expect(outcomes.slice(0, 2)).toMatchObject([
      { status: 'fulfilled', value: { changed: true } },
      { status: 'fulfilled', value: { changed: true } },
    ])
    const stored = await fleet.store.load(portal.memberId)
    expect(stored?.accessToken).toBe(authField(update, 'access_token'))
    expect(stored?.applicationToken).toBe(fresh)
  })
})
