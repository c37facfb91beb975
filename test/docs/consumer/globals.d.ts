/**
 * The names a fragment (`<!-- snippet: fragment -->`) may use without defining them: what the reader's own
 * application holds. Only fragments are checked with these; context.ts gives them values on the emulator.
 */
import type { HandlerRefreshAuth, PortalFleet, PortalOAuth, PortalOAuthParams } from 'portal-oauth'

declare global {
  /** The application's client of one portal. */
  var portal: PortalOAuth
  /** The application's fleet, with `memberId` installed. */
  var fleet: PortalFleet
  /** The pair the application persisted, in constructor shape. */
  var savedTokens: PortalOAuthParams
  /** The application's OAuth client id. */
  var clientId: string
  /** The application's OAuth client secret. */
  var clientSecret: string
  /** The application's database. */
  var db: { saveTokens(params: PortalOAuthParams): Promise<void> }
  /** The member id of an installed portal. */
  var memberId: string
  /** The raw body of an event the portal POSTed (an `ONAPPINSTALL`). */
  var rawFormBody: string
  /** The application token of the installation. */
  var applicationToken: string
  /** The query string of the OAuth redirect. */
  var query: { code: string }
  /** Some item ids. */
  var ids: number[]
  /** A token service of the application's own. */
  var tokenService: {
    refresh(refreshToken: string, options: { signal: AbortSignal }): Promise<HandlerRefreshAuth>
  }
  /** A metrics client of the application's own. */
  var metrics: { gauge(name: string, value: unknown): void }
  /** The application's own processing of a page of rows. */
  function index(rows: readonly unknown[]): Promise<void>
  /** The application's own processing of a page of contacts. */
  function saveContacts(rows: readonly unknown[]): Promise<void>
  /** The application's own processing of a page of events. */
  function handle(rows: readonly unknown[]): Promise<void>
  /** Whether the application has read enough. */
  function enough(): boolean
}
