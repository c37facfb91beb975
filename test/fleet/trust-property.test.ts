import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { FetchLike, PortalOAuthParams } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { ScheduledStore } from '../faults/scheduled-store.js'
import { type AttackerServer, startAttackerServer } from './attacker-server.js'
import { authField, createFleetRig } from './fleet-rig.js'

/**
 * Whatever an event body says, and in whatever order events arrive: the application's secrets never reach a host
 * it did not trust, the store holds only pairs the portal issued and its OAuth server confirmed, a pair is never
 * replaced by an older one, and the stored pair still refreshes at the end.
 */

const rig = createFleetRig()
let attacker: AttackerServer
const STRANGER = 'e'.repeat(32)

beforeAll(async () => {
  attacker = await startAttackerServer({ clientId: 'any', memberId: STRANGER, clientEndpoint: '' })
})
afterAll(async () => {
  await rig.close()
  await attacker.close()
})

/** One event as a sender may shape it, from a genuine body of the portal. */
interface Shaped {
  /** `uninstalled`: the portal removes the application and sends its `ONAPPUNINSTALL`. */
  event: 'ONAPPINSTALL' | 'ONAPPUPDATE' | 'ONAPPUNINSTALL' | 'uninstalled'
  serverEndpoint: 'genuine' | 'attacker'
  clientEndpoint: 'genuine' | 'attacker'
  accessToken: 'genuine' | 'made-up'
  applicationToken: 'genuine' | 'other'
  memberId: 'portal' | 'stranger'
  /** Send an earlier body again instead (its index among those sent, modulo their count). */
  replay: number | null
  /** Seconds the portal's clock moves before the event is made. */
  later: number
}

/** `usual` four times in five: most events are genuine, so that sequences of genuine ones and replays are common. */
function mostly<T extends string>(usual: T, forged: T): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: fc.constant(usual), weight: 4 }, { arbitrary: fc.constant(forged), weight: 1 })
}

const shaped: fc.Arbitrary<Shaped> = fc.record({
  event: fc.oneof(
    { arbitrary: fc.constantFrom('ONAPPINSTALL', 'ONAPPUPDATE', 'ONAPPUNINSTALL'), weight: 6 },
    { arbitrary: fc.constant('uninstalled' as const), weight: 1 },
  ),
  serverEndpoint: mostly('genuine', 'attacker'),
  clientEndpoint: mostly('genuine', 'attacker'),
  accessToken: mostly('genuine', 'made-up'),
  applicationToken: mostly('genuine', 'other'),
  memberId: mostly('portal', 'stranger'),
  replay: fc.option(fc.nat(), { freq: 3 }),
  later: fc.constantFrom(0, 1, 30),
})

it('no event decides where a secret goes, and none replaces a pair with an older or unproved one', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(shaped, { minLength: 1, maxLength: 8 }), async (events) => {
      const portal = await rig.portal()
      const fleet = rig.fleet(portal)
      attacker.received.length = 0
      const sent: URLSearchParams[] = []
      let uninstalled = false
      // Whether the stored pair may be one the portal revoked: it uninstalled since the last pair was taken (an
      // uninstall event that was tampered with is refused, so the store keeps the dead pair).
      let revoked = false
      for (const shape of events) {
        rig.later(shape.later * 1000)
        const earlier =
          shape.replay === null || sent.length === 0 ? undefined : sent[shape.replay % sent.length]
        if (!earlier && shape.event === 'uninstalled') {
          uninstalled = true
          revoked = true
        }
        const body =
          earlier ??
          new URLSearchParams(
            shape.event === 'uninstalled' ? portal.uninstall() : portal.installEvent(shape.event),
          )
        if (!earlier) {
          if (shape.serverEndpoint === 'attacker') body.set('auth[server_endpoint]', attacker.restRoot)
          if (shape.clientEndpoint === 'attacker') body.set('auth[client_endpoint]', attacker.restRoot)
          if (shape.accessToken === 'made-up' && body.has('auth[access_token]'))
            body.set('auth[access_token]', 'made-up-token')
          if (shape.applicationToken === 'other') body.set('auth[application_token]', 'a'.repeat(32))
          if (shape.memberId === 'stranger') body.set('auth[member_id]', STRANGER)
          sent.push(body)
        }
        const before = await fleet.store.load(portal.memberId)
        const outcome = await fleet.handleEvent(body).then(
          (result) => result.changed,
          () => false,
        )
        const after = await fleet.store.load(portal.memberId)
        expect(await fleet.store.load(STRANGER)).toBeNull()
        // Only the portal's own uninstall removes it: an application token alone proves nothing.
        if (before && !after) expect(uninstalled).toBe(true)
        if (after && after !== before && after.accessToken !== before?.accessToken) {
          expect(outcome).toBe(true)
          expectGenuine(after, portal.serverEndpoint, portal.clientEndpoint)
          expect(after.accessToken).toBe(body.get('auth[access_token]'))
          if (before) expect(after.expires).toBeGreaterThan(before.expires)
          revoked = false
        }
      }
      expect(attacker.received).toEqual([])
      const stored = await fleet.store.load(portal.memberId)
      if (stored && !revoked) await (await fleet.get(portal.memberId)).auth.refreshAuth()
      // No refresh token was sent twice (a refused one is a pair the portal revoked when it uninstalled).
      const spent = portal.log.refreshRequests().map((entry) => entry.token)
      expect(new Set(spent).size).toBe(spent.length)
      if (!uninstalled) expect(portal.log.rejected('invalid_grant')).toEqual([])
      await fleet.destroy()
      await portal.close()
    }),
    { numRuns: 100 },
  )
})

function expectGenuine(pair: PortalOAuthParams, serverEndpoint: string, clientEndpoint: string): void {
  expect(pair.serverEndpoint).toBe(serverEndpoint)
  expect(pair.clientEndpoint).toBe(clientEndpoint)
  expect(pair.accessToken).not.toBe('made-up-token')
}

/** One event sent at once with the others, to one of two portals. */
interface Concurrent {
  portal: 0 | 1
  /**
   * `update`, `install`: genuine (a repeated install keeps the application token); `forged-update`: the stored
   * application token with a made-up access token; `forged-reinstall`: another application token, a made-up access
   * token; `forged-new`: a portal never seen; `replay`: an earlier body of the same portal again.
   */
  kind: 'update' | 'install' | 'forged-update' | 'forged-reinstall' | 'forged-new' | 'replay'
  /** Which earlier body a replay sends (modulo their count). */
  pick: number
}

const concurrent: fc.Arbitrary<Concurrent> = fc.record({
  portal: fc.constantFrom<0 | 1>(0, 1),
  kind: fc.constantFrom('update', 'install', 'forged-update', 'forged-reinstall', 'forged-new', 'replay'),
  pick: fc.nat(),
})

it('events sent together, in any interleaving of store and server answers, leave the newest genuine pair stored', async () => {
  const portals = [await rig.portal(), await rig.portal()] as const
  await fc.assert(
    fc.asyncProperty(
      fc.array(concurrent, { minLength: 1, maxLength: 12 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
      fc.scheduler(),
      async (events, arrival, s) => {
        const store = new ScheduledStore()
        store.scheduler = s
        // The OAuth server's and the portal's answers come when the scheduler lets them.
        const adapter: FetchLike = async (input, init) => {
          const response = await fetch(input, init)
          const url = input instanceof Request ? input.url : String(input)
          await s.schedule(Promise.resolve(), new URL(url).pathname)
          return response
        }
        const fleet = rig.fleet(portals[0], { store, httpOptions: { adapter } })
        const sent: URLSearchParams[][] = [[], []]
        const genuine: { portal: 0 | 1; body: URLSearchParams }[] = []
        const forgedTokens = new Set<string>()
        let forgedCount = 0
        const make = (portal: PortalEmulator, event: 'ONAPPINSTALL' | 'ONAPPUPDATE'): URLSearchParams => {
          // Every genuine pair expires later than the one made before it.
          rig.later()
          return new URLSearchParams(portal.installEvent(event))
        }
        const forge = (body: URLSearchParams): URLSearchParams => {
          forgedCount += 1
          body.set('auth[access_token]', `forged-access-${forgedCount}`)
          body.set('auth[refresh_token]', `forged-refresh-${forgedCount}`)
          forgedTokens.add(`forged-refresh-${forgedCount}`)
          return body
        }
        // Each portal's first event is its install, sent first; the others arrive in an order of their own.
        const firsts = portals.map((portal, index) => {
          const body = make(portal, 'ONAPPINSTALL')
          sent[index]!.push(body)
          genuine.push({ portal: index as 0 | 1, body })
          return body
        })
        const rest = events.map((shape) => {
          const portal = portals[shape.portal]
          const own = sent[shape.portal]!
          let body: URLSearchParams
          if (shape.kind === 'replay') body = new URLSearchParams(own[shape.pick % own.length]!)
          else if (shape.kind === 'update' || shape.kind === 'install') {
            body = make(portal, shape.kind === 'update' ? 'ONAPPUPDATE' : 'ONAPPINSTALL')
            genuine.push({ portal: shape.portal, body })
          } else {
            body = forge(make(portal, shape.kind === 'forged-update' ? 'ONAPPUPDATE' : 'ONAPPINSTALL'))
            if (shape.kind === 'forged-reinstall') body.set('auth[application_token]', 'a'.repeat(32))
            if (shape.kind === 'forged-new') body.set('auth[member_id]', STRANGER)
          }
          own.push(body)
          return body
        })
        const order = rest
          .map((body, index) => ({ body, key: arrival[index % arrival.length]! + index / 100 }))
          .sort((a, b) => a.key - b.key)
          .map((entry) => entry.body)
        const handled = Promise.allSettled([...firsts, ...order].map((body) => fleet.handleEvent(body)))
        let settled = false
        void handled.then(() => {
          settled = true
        })
        while (!settled) {
          if (s.count() > 0) await s.waitNext(1)
          else await sleep(1)
        }
        store.scheduler = null
        for (const [index, portal] of portals.entries()) {
          const newest = genuine
            .filter((entry) => entry.portal === index)
            .reduce((a, b) =>
              Number(authField(`${b.body}`, 'expires')) > Number(authField(`${a.body}`, 'expires')) ? b : a,
            )
          const stored = await store.inner.load(portal.memberId)
          expect(stored?.accessToken).toBe(newest.body.get('auth[access_token]'))
          expect(stored?.applicationToken).toBe(portal.applicationToken)
        }
        expect(await store.inner.load(STRANGER)).toBeNull()
        expect(store.written.filter((token) => forgedTokens.has(token))).toEqual([])
        await fleet.destroy()
        rig.fleets.splice(rig.fleets.indexOf(fleet), 1)
      },
    ),
    { numRuns: 60 },
  )
})
