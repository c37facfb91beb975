/** What `new PortalHook(params)` takes: the parts of an inbound webhook URL `{b24Url}/rest/{userId}/{secret}/`. */
export interface PortalHookParams {
  /** The portal's address, for example `https://portal.example.com` (no path). */
  b24Url: string
  /** Id of the user the webhook acts as. */
  userId: number
  /** The webhook's secret code. A secret: never logged, never in an error. */
  secret: string
}
