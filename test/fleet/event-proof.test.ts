import { afterEach, describe, expect, it } from 'vitest'
import { type FetchLike, SdkErrorCode } from '../../src/index.js'
import type { PortalEmulator } from '../../src/testing/index.js'
import { createFleetRig } from './fleet-rig.js'

// How an install event is proved at its OAuth server (`app.info`), for answers the emulator does not give: its
// `app.info` always names the installation's client_endpoint, while an OAuth server may name only the portal's
// domain or uri, answer something other than JSON, or not be reachable at all. The fleet's adapter forwards each
// request to the emulator and changes the answer of `app.info` only; every other request goes through unchanged.

const rig = createFleetRig()
afterEach(() => rig.close())

type Install = Record<string, unknown>

/** An adapter that rewrites the `result` of `app.info` answers with `change`. */
function rewritingAppInfo(change: (result: Record<string, unknown>, install: Install) => void): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init)
    if (!String(input instanceof Request ? input.url : input).includes('/app.info')) return response
    const payload = (await response.json()) as { result: Record<string, unknown> }
    change(payload.result, payload.result.install as Install)
    return new Response(JSON.stringify(payload), { status: response.status, headers: response.headers })
  }
}

describe('an install event proved at its OAuth server', () => {
  it('an installation named by its domain or its uri only is the portal when they match the client_endpoint', async () => {
    const portal = await rig.portal()
    const host = new URL(portal.clientEndpoint).host
    const origin = new URL(portal.clientEndpoint).origin
    const byDomain = rig.fleet(portal, {
      httpOptions: {
        adapter: rewritingAppInfo((_, install) => {
          delete install.client_endpoint
          delete install.uri
          install.domain = host
        }),
      },
    })
    expect((await byDomain.handleEvent(portal.installEvent('ONAPPINSTALL'))).changed).toBe(true)
    const byUri = rig.fleet(portal, {
      httpOptions: {
        adapter: rewritingAppInfo((_, install) => {
          delete install.client_endpoint
          delete install.domain
          install.uri = `${origin}/`
        }),
      },
    })
    expect((await byUri.handleEvent(portal.installEvent('ONAPPINSTALL'))).changed).toBe(true)
    // A field given as null is not given: the others name the portal.
    const withNulls = rig.fleet(portal, {
      httpOptions: {
        adapter: rewritingAppInfo((_, install) => {
          install.domain = null
          install.uri = null
        }),
      },
    })
    expect((await withNulls.handleEvent(portal.installEvent('ONAPPINSTALL'))).changed).toBe(true)
  })

  it('an answer naming another application, no installation or another installation proves nothing', async () => {
    const portal = await rig.portal()
    const cases: Array<[(result: Record<string, unknown>, install: Install) => void, string]> = [
      [
        (result) => {
          result.client_id = 'another-app'
        },
        'issued to another application',
      ],
      [
        (result) => {
          delete result.install
        },
        'no installation in the answer',
      ],
      [
        (_, install) => {
          install.member_id = 'another-portal'
        },
        'issued for another portal',
      ],
      [
        (_, install) => {
          install.client_endpoint = 'https://other.example/rest/'
        },
        'the installation is on another client_endpoint',
      ],
      [
        (_, install) => {
          delete install.client_endpoint
          install.domain = 'other.example'
        },
        'the installation is on another client_endpoint',
      ],
      [
        (_, install) => {
          delete install.client_endpoint
          delete install.domain
          install.uri = 'https://other.example/'
        },
        'the installation is on another client_endpoint',
      ],
      [
        (_, install) => {
          delete install.client_endpoint
          delete install.domain
          install.uri = 'not a url'
        },
        'the installation is on another client_endpoint',
      ],
      [
        (_, install) => {
          delete install.client_endpoint
          delete install.domain
          // A list is no uri, though its text would be the portal's.
          install.uri = [install.uri]
        },
        'the installation is on another client_endpoint',
      ],
      [
        (_, install) => {
          delete install.client_endpoint
          delete install.domain
          delete install.uri
        },
        'the installation is on another client_endpoint',
      ],
      [
        (_, install) => {
          delete install.client_endpoint
          delete install.uri
          install.domain = 'not a host'
        },
        'the installation is on another client_endpoint',
      ],
    ]
    for (const [change, why] of cases) {
      const fleet = rig.fleet(portal, { httpOptions: { adapter: rewritingAppInfo(change) } })
      await expect(fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
        message: `handleEvent: portal ${portal.memberId}: the OAuth server did not confirm the event's access token (${why}); nothing was changed`,
      })
      expect(await fleet.store.load(portal.memberId)).toBeNull()
    }
  })

  it("the pair is kept with the expiry the OAuth server confirms, a positive whole number, else the event's", async () => {
    const portal = await rig.portal()
    const cases: Array<[(claimed: number) => unknown, (claimed: number) => number]> = [
      [(claimed) => claimed + 100, (claimed) => claimed + 100],
      [(claimed) => String(claimed + 100), (claimed) => claimed],
      [(claimed) => claimed + 0.5, (claimed) => claimed],
      [() => 0, (claimed) => claimed],
      [() => -1, (claimed) => claimed],
      [() => undefined, (claimed) => claimed],
    ]
    for (const [confirmed, kept] of cases) {
      const body = portal.installEvent('ONAPPINSTALL')
      const claimed = Number(new URLSearchParams(body).get('auth[expires]'))
      const fleet = rig.fleet(portal, {
        httpOptions: {
          adapter: rewritingAppInfo((result) => {
            result.expires = confirmed(claimed)
          }),
        },
      })
      await fleet.handleEvent(body)
      expect((await fleet.store.load(portal.memberId))?.expires).toBe(kept(claimed))
    }
  })

  it('an event without auth[expires] claims now plus its lifetime, kept when the OAuth server confirms none', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal, {
      httpOptions: {
        adapter: rewritingAppInfo((result) => {
          delete result.expires
        }),
      },
    })
    const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    body.delete('auth[expires]')
    body.set('auth[expires_in]', '1800')
    const before = Math.floor(Date.now() / 1000)
    expect((await fleet.handleEvent(body)).changed).toBe(true)
    const after = Math.floor(Date.now() / 1000)
    const kept = (await fleet.store.load(portal.memberId))?.expires
    expect(kept).toBeGreaterThanOrEqual(before + 1800)
    expect(kept).toBeLessThanOrEqual(after + 1800)
  })

  it('an update whose confirmed expiry is not newer than the stored pair is ignored, though it claims to be', async () => {
    const portal = await rig.portal()
    const fleet = rig.fleet(portal)
    await fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))
    const stored = await fleet.store.load(portal.memberId)
    rig.later(60_000)
    const update = portal.installEvent('ONAPPUPDATE')
    const late = rig.fleet(portal, {
      store: fleet.store,
      httpOptions: {
        adapter: rewritingAppInfo((result) => {
          result.expires = stored!.expires - 10
        }),
      },
    })
    expect((await late.handleEvent(update)).changed).toBe(false)
    expect(await fleet.store.load(portal.memberId)).toEqual(stored)
  })

  it('an answer that is not JSON proves nothing; an unreachable server is a network error that quotes no token', async () => {
    const portal = await rig.portal()
    const notJson: FetchLike = async (input, init) => {
      const response = await fetch(input, init)
      if (!String(input).includes('/app.info')) return response
      return new Response(answer, { status: 200 })
    }
    let answer = '<html>maintenance</html>'
    const fleet = rig.fleet(portal, { httpOptions: { adapter: notJson } })
    for (const body of ['<html>maintenance</html>', 'null', '{"result":null}']) {
      answer = body
      await expect(fleet.handleEvent(portal.installEvent('ONAPPINSTALL'))).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
        message: expect.stringContaining('(HTTP 200, no installation)'),
      })
    }
    const body = portal.installEvent('ONAPPINSTALL')
    const token = new URLSearchParams(body).get('auth[access_token]')!
    const unreachable: FetchLike = async () => {
      throw new Error(`connect ECONNREFUSED while sending auth=${token}`)
    }
    const cut = rig.fleet(portal, { httpOptions: { adapter: unreachable } })
    const failure = await cut.handleEvent(body).then(
      () => null,
      (error: unknown) => error as Error & { code?: string },
    )
    expect(failure).toMatchObject({
      code: SdkErrorCode.NetworkError,
      message: 'handleEvent: the OAuth server could not be reached to check the event; nothing was changed',
    })
    expect(JSON.stringify(failure)).not.toContain(token)
    expect(String(failure?.message)).not.toContain(token)
    expect(await cut.store.load(portal.memberId)).toBeNull()
  })
})

describe("the portal's address, compared whatever shape the OAuth server names it by", () => {
  /** The event's body with `auth[client_endpoint]` (and `auth[domain]`) set to `clientEndpoint`. */
  function claiming(portal: PortalEmulator, clientEndpoint: string): URLSearchParams {
    const body = new URLSearchParams(portal.installEvent('ONAPPINSTALL'))
    body.set('auth[client_endpoint]', clientEndpoint)
    body.set('auth[domain]', new URL(clientEndpoint).host)
    return body
  }

  it('another REST root on the same host, or plain http where the uri says https, proves nothing', async () => {
    const portal = await rig.portal()
    const { origin, host } = new URL(portal.clientEndpoint)
    const named: Array<[string, (install: Install) => void]> = [
      [
        'domain',
        (install) => Object.assign(install, { client_endpoint: undefined, uri: undefined, domain: host }),
      ],
      [
        'uri',
        (install) =>
          Object.assign(install, { client_endpoint: undefined, domain: undefined, uri: `${origin}/` }),
      ],
      ['all three', () => {}],
    ]
    for (const [by, change] of named) {
      const fleet = rig.fleet(portal, {
        httpOptions: { adapter: rewritingAppInfo((_, install) => change(install)) },
      })
      for (const claimed of [`${origin}/evil/rest/`, `${origin}/rest/evil/rest/`]) {
        await expect(fleet.handleEvent(claiming(portal, claimed)), `${by}: ${claimed}`).rejects.toMatchObject(
          {
            code: SdkErrorCode.EventNotProved,
            message: expect.stringContaining('the installation is on another client_endpoint'),
          },
        )
      }
      expect(await fleet.store.load(portal.memberId)).toBeNull()
    }
    const secure = rig.fleet(portal, {
      httpOptions: {
        adapter: rewritingAppInfo((_, install) =>
          Object.assign(install, { client_endpoint: undefined, domain: undefined, uri: `https://${host}/` }),
        ),
      },
    })
    await expect(secure.handleEvent(portal.installEvent('ONAPPINSTALL'))).rejects.toMatchObject({
      code: SdkErrorCode.EventNotProved,
    })
    // Every refused event stopped at the OAuth server: its token never went to the address it claimed.
    expect(portal.log.restRequests()).toHaveLength(0)
  })

  it('plain http to another machine is refused before any request, unless the fleet takes such portals', async () => {
    const portal = await rig.portal()
    const remote = 'http://portal.example/rest/'
    // The OAuth server names the remote address, and the remote host is the emulator's portal.
    const adapter = rewritingAppInfo((_, install) =>
      Object.assign(install, {
        client_endpoint: remote,
        uri: 'http://portal.example/',
        domain: 'portal.example',
      }),
    )
    const routed: FetchLike = (input, init) =>
      adapter(
        String(input).replace('http://portal.example/', `${new URL(portal.clientEndpoint).origin}/`),
        init,
      )
    const strict = rig.fleet(portal, { httpOptions: { adapter: routed } })
    await expect(strict.handleEvent(claiming(portal, remote))).rejects.toMatchObject({
      code: SdkErrorCode.InvalidArgument,
      message: expect.stringMatching(/auth\[client_endpoint\].*plain http:\/\/.*options\.plainHttpPortals/),
    })
    expect(portal.log.entries).toHaveLength(0)
    const opted = rig.fleet(portal, { plainHttpPortals: true, httpOptions: { adapter: routed } })
    expect((await opted.handleEvent(claiming(portal, remote))).changed).toBe(true)
    expect(await opted.store.load(portal.memberId)).toMatchObject({ clientEndpoint: remote })
    expect(() => rig.fleet(portal, { plainHttpPortals: 'yes' as unknown as boolean })).toThrow(
      expect.objectContaining({
        code: SdkErrorCode.InvalidArgument,
        message: expect.stringContaining('options.plainHttpPortals'),
      }),
    )
  })

  it('a portal over https named by its domain only is proved over https', async () => {
    const portal = await rig.portal()
    const secure = 'https://portal.example/rest/'
    const adapter = rewritingAppInfo((_, install) =>
      Object.assign(install, { client_endpoint: undefined, uri: undefined, domain: 'portal.example' }),
    )
    // The portal's host is the emulator's portal (a TLS proxy in front of it, as it were).
    const routed: FetchLike = (input, init) =>
      adapter(
        String(input).replace('https://portal.example/', `${new URL(portal.clientEndpoint).origin}/`),
        init,
      )
    const fleet = rig.fleet(portal, { httpOptions: { adapter: routed } })
    expect((await fleet.handleEvent(claiming(portal, secure))).changed).toBe(true)
    expect(await fleet.store.load(portal.memberId)).toMatchObject({ clientEndpoint: secure })
  })

  it("the portal's answer about the token's user: only ADMIN true is an administrator; no answer is a network error", async () => {
    const portal = await rig.portal()
    const answering =
      (body: string, status = 200): FetchLike =>
      async (input, init) =>
        String(input).endsWith('/profile') ? new Response(body, { status }) : fetch(input, init)
    for (const [body, status] of [
      ['{"result":{"ID":"1","ADMIN":"Y"}}', 200],
      ['{"result":{"ID":"1","ADMIN":1}}', 200],
      ['{"result":[]}', 200],
      ['{"error":"ACCESS_DENIED"}', 403],
      ['{"result":{"ID":"1","ADMIN":true}}', 500],
      ['<html>maintenance</html>', 200],
      ['null', 200],
      ['1', 200],
      ['{"result":null}', 200],
    ] as const) {
      const fleet = rig.fleet(portal, { httpOptions: { adapter: answering(body, status) } })
      await expect(fleet.handleEvent(portal.installEvent('ONAPPINSTALL')), body).rejects.toMatchObject({
        code: SdkErrorCode.EventNotProved,
        message: expect.stringContaining('not an administrator'),
      })
    }
    const body = portal.installEvent('ONAPPINSTALL')
    const token = new URLSearchParams(body).get('auth[access_token]')!
    const cut = rig.fleet(portal, {
      httpOptions: {
        adapter: async (input, init) => {
          if (String(input).endsWith('/profile')) throw new Error(`ECONNRESET sending auth=${token}`)
          return fetch(input, init)
        },
      },
    })
    const failure = await cut.handleEvent(body).then(
      () => null,
      (error: unknown) => error,
    )
    expect(failure).toMatchObject({
      code: SdkErrorCode.NetworkError,
      message: "handleEvent: the portal could not be reached to check the event's user; nothing was changed",
      request: { method: 'profile' },
    })
    expect(JSON.stringify(failure)).not.toContain(token)
    expect(await cut.store.load(portal.memberId)).toBeNull()
  })
})
