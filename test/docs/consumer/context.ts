/**
 * Values for the names of globals.d.ts, built on the emulator the test runs (its settings come in
 * SNIPPET_CONTEXT), and what closes them once the fragment has run.
 */
import { type HandlerRefreshAuth, PortalFleet, PortalOAuth, type PortalOAuthParams } from 'portal-oauth'

/** What the test hands over: fresh credentials and events of its emulator. */
interface Given {
  tokens: PortalOAuthParams
  clientId: string
  clientSecret: string
  memberId: string
  applicationToken: string
  /** An `ONAPPINSTALL` body for the context's fleet. */
  fleetInstall: string
  /** Another `ONAPPINSTALL` body, for the fragment's `rawFormBody`. */
  rawFormBody: string
  /** An authorization code for `query.code`. */
  code: string
}

/** Defines the globals of globals.d.ts; resolves to what closes what they hold. */
export async function open(): Promise<() => Promise<void>> {
  const given = JSON.parse(process.env.SNIPPET_CONTEXT ?? '') as Given
  const secret = { clientId: given.clientId, clientSecret: given.clientSecret }
  const portal = new PortalOAuth(given.tokens, secret)
  const fleet = new PortalFleet({ oAuthSecret: secret })
  await fleet.handleEvent(given.fleetInstall)
  const saved: PortalOAuthParams[] = []
  const noop = async (_rows: readonly unknown[]): Promise<void> => {}
  Object.assign(globalThis, {
    portal,
    fleet,
    savedTokens: given.tokens,
    clientId: given.clientId,
    clientSecret: given.clientSecret,
    db: {
      saveTokens: async (params: PortalOAuthParams) => {
        saved.push(params)
      },
    },
    memberId: given.memberId,
    rawFormBody: given.rawFormBody,
    applicationToken: given.applicationToken,
    query: { code: given.code },
    ids: [1, 2, 3],
    tokenService: {
      refresh: async (): Promise<HandlerRefreshAuth> => {
        throw new Error('tokenService.refresh is a stand-in of the tests')
      },
    },
    metrics: { gauge: () => {} },
    index: noop,
    saveContacts: noop,
    handle: noop,
    enough: () => false,
  })
  return async () => {
    await fleet.destroy()
    await portal.destroy()
  }
}
