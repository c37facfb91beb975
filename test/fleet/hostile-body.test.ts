import { afterEach, describe, expect, it } from 'vitest'
import { SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createFleetRig } from './fleet-rig.js'

const rig = createFleetRig()
afterEach(() => {
  delete (Object.prototype as Record<string, unknown>).polluted
  return rig.close()
})

/** A real install body with `extra` fields appended, as a raw string. */
function installWith(portal: PortalEmulator, extra: string): string {
  return `${portal.installEvent('ONAPPINSTALL')}&${extra}`
}

/** The body is refused as hostile, the store holds nothing, and no object gained a `polluted` member. */
async function refused(portal: PortalEmulator, body: unknown): Promise<void> {
  const fleet = rig.fleet(portal)
  await expect(fleet.handleEvent(body)).rejects.toMatchObject({ code: SdkErrorCode.InvalidArgument })
  expect(await fleet.store.load(portal.memberId)).toBeNull()
  await expect(fleet.get(portal.memberId)).rejects.toMatchObject({ code: SdkErrorCode.PortalNotInstalled })
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false)
}

describe('a hostile event body is refused with JSSDK_INVALID_ARGUMENT and changes nothing', () => {
  it('auth[__proto__][polluted]=yes never touches Object.prototype, in any body shape', async () => {
    const portal = await rig.portal()
    const raw = installWith(portal, 'auth%5B__proto__%5D%5Bpolluted%5D=yes')
    await refused(portal, raw)
    await refused(portal, new URLSearchParams(raw))
    await refused(portal, Object.fromEntries(new URLSearchParams(raw)))
    const nested = JSON.parse(
      `{"event":"ONAPPINSTALL","auth":{"member_id":"${portal.memberId}","__proto__":{"polluted":"yes"}}}`,
    ) as unknown
    await refused(portal, nested)
  })

  it('constructor and prototype names anywhere', async () => {
    const portal = await rig.portal()
    await refused(portal, installWith(portal, 'constructor[prototype][polluted]=yes'))
    await refused(portal, installWith(portal, 'data[prototype]=yes'))
    await refused(portal, installWith(portal, 'auth[constructor]=yes'))
  })

  it('thousands of nested brackets', async () => {
    const portal = await rig.portal()
    await refused(portal, installWith(portal, `data${'[a]'.repeat(5_000)}=x`))
    let deep: Record<string, unknown> = { x: 'y' }
    for (let level = 0; level < 5_000; level += 1) deep = { a: deep }
    const body = Object.fromEntries(new URLSearchParams(portal.installEvent('ONAPPINSTALL')))
    await refused(portal, { ...body, data: deep })
  })

  it('a megabyte of data, or thousands of fields', async () => {
    const portal = await rig.portal()
    await refused(portal, installWith(portal, `data[NOTE]=${'x'.repeat(1024 * 1024)}`))
    const body = Object.fromEntries(new URLSearchParams(portal.installEvent('ONAPPINSTALL')))
    await refused(portal, { ...body, 'data[NOTE]': 'x'.repeat(1024 * 1024) })
    const fields = Array.from({ length: 5_000 }, (_, index) => `data[F${index}]=1`).join('&')
    await refused(portal, installWith(portal, fields))
  })

  it('a list where a string belongs', async () => {
    const portal = await rig.portal()
    const raw = portal.installEvent('ONAPPINSTALL')
    const flat = Object.fromEntries(new URLSearchParams(raw))
    await refused(portal, { ...flat, 'auth[access_token]': ['a', 'b'] })
    await refused(portal, `${raw}&auth%5Baccess_token%5D%5B%5D=a`)
    await refused(portal, `${raw}&event=ONAPPUNINSTALL`)
    await refused(portal, `${raw}&auth%5Bmember_id%5D=${portal.memberId}`)
  })

  it('malformed names, values of the wrong kind, and bodies that are no event', async () => {
    const portal = await rig.portal()
    const flat = Object.fromEntries(new URLSearchParams(portal.installEvent('ONAPPINSTALL')))
    await refused(portal, installWith(portal, 'auth%5Bx=1'))
    await refused(portal, installWith(portal, 'auth%5Bx%5Dy=1'))
    await refused(portal, installWith(portal, 'auth=flat'))
    await refused(portal, { ...flat, 'auth[scope]': { nested: 'x' } })
    await refused(portal, { ...flat, 'auth[user_id]': true })
    await refused(portal, { ...flat, event: undefined })
    await refused(portal, null)
    await refused(portal, 42)
    await refused(portal, ['event', 'ONAPPINSTALL'])
    await refused(portal, Buffer.from(portal.installEvent('ONAPPINSTALL')))
  })

  it('a body whose auth[member_id] is no member id', async () => {
    const portal = await rig.portal()
    const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    body.set('auth[member_id]', '{a}:b')
    await refused(portal, body)
  })
})

describe('a body object whose getter throws', () => {
  it("is refused with JSSDK_INVALID_ARGUMENT, not the getter's own error; nothing is stored", async () => {
    const portal = await rig.portal()
    const fields = Object.fromEntries(new URLSearchParams(portal.installEvent('ONAPPINSTALL')))
    const body = { ...fields }
    Object.defineProperty(body, 'auth[scope]', {
      enumerable: true,
      get() {
        throw new Error('getter boom')
      },
    })
    await refused(portal, body)
    const nested = { event: 'ONAPPINSTALL', auth: {} }
    Object.defineProperty(nested.auth, 'member_id', {
      enumerable: true,
      get() {
        throw new Error('getter boom')
      },
    })
    await refused(portal, nested)
  })
})
