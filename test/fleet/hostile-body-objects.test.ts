import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { type PortalFleet, SdkError, SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createFleetRig } from './fleet-rig.js'

// A body given as an object runs its own code while it is read: proxy traps and getters, at any depth. Whatever they
// throw, handleEvent refuses the body with JSSDK_INVALID_ARGUMENT and changes nothing; what they throw never escapes.

const rig = createFleetRig()
afterEach(() => rig.close())

type Tree = { [key: string]: string | Tree }

/** The objects of a nested body a hostile part can replace: the body itself, a group, a group in a group. */
const PLACES = ['body', 'auth', 'data', 'data.FIELDS'] as const
type Place = (typeof PLACES)[number]

/** The traps the parser meets while it reads an object. */
const MET_TRAPS = ['getPrototypeOf', 'ownKeys', 'get', 'getOwnPropertyDescriptor'] as const
type Trap = (typeof MET_TRAPS)[number] | 'has'

type Hostility = { kind: 'trap'; trap: Trap } | { kind: 'revoked' } | { kind: 'getter'; key: number }

/** What a hostile part throws: an error, other values, an error of this package with another code, a proxy again. */
const THROWN = {
  error: () => new Error('trap boom'),
  string: () => 'boom',
  undefined: () => undefined,
  sdkError: () => new SdkError({ code: 'NOT_THE_PARSER', message: 'thrown by the body' }),
  hostileProxy: () =>
    new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('the thrown value is hostile too')
        },
        get() {
          throw new Error('the thrown value is hostile too')
        },
      },
    ),
} as const
type Thrown = keyof typeof THROWN

const UNREADABLE = 'handleEvent: the body object could not be read (a getter or proxy threw)'

/** The install event as a body parser gives it nested, with a group two levels deep in `data`. */
function nestedInstall(portal: PortalEmulator): Tree {
  const auth: Tree = {}
  const data: Tree = { FIELDS: { ID: '7' } }
  const body: Tree = { auth, data }
  for (const [name, value] of new URLSearchParams(portal.installEvent('ONAPPINSTALL'))) {
    const group = /^(auth|data)\[(\w+)\]$/.exec(name)
    if (group?.[1] === 'auth') auth[group[2] as string] = value
    else if (group?.[1] === 'data') data[group[2] as string] = value
    else body[name] = value
  }
  return body
}

function hostileObject(target: Tree, hostility: Hostility, thrown: Thrown): object {
  const raise = (): never => {
    throw THROWN[thrown]()
  }
  switch (hostility.kind) {
    case 'trap': {
      const handler: ProxyHandler<Tree> = {}
      handler[hostility.trap] = raise
      return new Proxy(target, handler)
    }
    case 'revoked': {
      const { proxy, revoke } = Proxy.revocable(target, {})
      revoke()
      return proxy
    }
    case 'getter': {
      // One of the object's own fields, or one more.
      const keys = [...Object.keys(target), 'EXTRA']
      const key = keys[hostility.key % keys.length] as string
      Object.defineProperty(target, key, { enumerable: true, configurable: true, get: raise })
      return target
    }
  }
}

/** One hostile part of a body: where it stands, how it is hostile, what it throws. */
type Part = readonly [Place, Hostility, Thrown]

/** The install body with each part's object made hostile (deepest first: a group before the object holding it). */
function hostileBody(portal: PortalEmulator, parts: readonly Part[]): unknown {
  const body = nestedInstall(portal)
  let given: unknown = body
  const deepestFirst = [...parts].sort(([a], [b]) => PLACES.indexOf(b) - PLACES.indexOf(a))
  for (const [place, hostility, thrown] of deepestFirst) {
    if (place === 'body') {
      given = hostileObject(body, hostility, thrown)
      continue
    }
    const path = place.split('.')
    const parent = path.slice(0, -1).reduce<Tree>((node, key) => node[key] as Tree, body)
    const last = path.at(-1) as string
    // A hostile object stands where the group was.
    ;(parent as Record<string, unknown>)[last] = hostileObject(parent[last] as Tree, hostility, thrown)
  }
  return given
}

/** Refused with JSSDK_INVALID_ARGUMENT for an unreadable body; the store holds nothing, the portal is unknown. */
async function refusedUnreadable(fleet: PortalFleet, portal: PortalEmulator, body: unknown): Promise<void> {
  const error = await fleet.handleEvent(body).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(SdkError)
  expect(error).toMatchObject({ code: SdkErrorCode.InvalidArgument, message: UNREADABLE })
  expect(await fleet.store.load(portal.memberId)).toBeNull()
  await expect(fleet.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.PortalNotInstalled })
}

describe('a body object whose proxy traps throw', () => {
  for (const trap of MET_TRAPS) {
    it(`${trap}: refused with JSSDK_INVALID_ARGUMENT on the body and on every nested group`, async () => {
      const portal = await rig.portal()
      for (const place of PLACES) {
        await refusedUnreadable(
          rig.fleet(portal),
          portal,
          hostileBody(portal, [[place, { kind: 'trap', trap }, 'error']]),
        )
      }
    })
  }

  it('revoked proxies, where every trap throws a TypeError: refused on the body and on every nested group', async () => {
    const portal = await rig.portal()
    for (const place of PLACES) {
      await refusedUnreadable(
        rig.fleet(portal),
        portal,
        hostileBody(portal, [[place, { kind: 'revoked' }, 'error']]),
      )
    }
  })

  it('has: reading a body never asks it, so a body that is otherwise genuine is installed as its fields say', async () => {
    const portal = await rig.portal()
    for (const place of PLACES) {
      const fleet = rig.fleet(portal)
      const result = await fleet.handleEvent(
        hostileBody(portal, [[place, { kind: 'trap', trap: 'has' }, 'error']]),
      )
      expect(result).toMatchObject({ event: 'ONAPPINSTALL', memberId: portal.memberId })
      expect(result.data).toMatchObject({ FIELDS: { ID: '7' } })
      expect(await fleet.store.load(portal.memberId)).toMatchObject({ memberId: portal.memberId })
    }
  })
})

describe('what a getter or trap throws never escapes', () => {
  it('an error of this package with another code, a string, undefined, a proxy that throws when inspected', async () => {
    const portal = await rig.portal()
    for (const thrown of Object.keys(THROWN) as Thrown[]) {
      for (const place of PLACES) {
        const body = hostileBody(portal, [[place, { kind: 'getter', key: 0 }, thrown]])
        await refusedUnreadable(rig.fleet(portal), portal, body)
      }
      const top = hostileBody(portal, [['body', { kind: 'trap', trap: 'getPrototypeOf' }, thrown]])
      await refusedUnreadable(rig.fleet(portal), portal, top)
    }
  })
})

describe('what only claims to be a URLSearchParams', () => {
  it('an object on its prototype, a proxy of one, one whose iterator throws: refused, nothing stored', async () => {
    const portal = await rig.portal()
    const params = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    await refusedUnreadable(rig.fleet(portal), portal, Object.create(URLSearchParams.prototype))
    await refusedUnreadable(rig.fleet(portal), portal, new Proxy(params, {}))
    const broken = new URLSearchParams(params)
    Object.defineProperty(broken, Symbol.iterator, {
      value: () => {
        throw new Error('iterator boom')
      },
    })
    await refusedUnreadable(rig.fleet(portal), portal, broken)
  })
})

describe('hostile shapes, generated', () => {
  it('any place, any hostility the parser meets, any thrown value: JSSDK_INVALID_ARGUMENT and nothing stored', async () => {
    const portal = await rig.portal()
    const hostility = fc.oneof(
      fc.constantFrom(...MET_TRAPS).map((trap): Hostility => ({ kind: 'trap', trap })),
      fc.constant<Hostility>({ kind: 'revoked' }),
      fc.nat({ max: 40 }).map((key): Hostility => ({ kind: 'getter', key })),
    )
    const thrown = fc.constantFrom(...(Object.keys(THROWN) as Thrown[]))
    // One to three hostile places in one body: the first one met decides, and it is refused all the same.
    const parts = fc.uniqueArray(fc.tuple(fc.constantFrom(...PLACES), hostility, thrown), {
      minLength: 1,
      maxLength: 3,
      selector: ([place]) => place,
    })
    await fc.assert(
      fc.asyncProperty(parts, async (chosen) => {
        await refusedUnreadable(rig.fleet(portal), portal, hostileBody(portal, chosen))
      }),
      { numRuns: 150 },
    )
  })
})
